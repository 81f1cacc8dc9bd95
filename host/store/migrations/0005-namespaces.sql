-- namespaces, model expiry and deletion, usage per namespace, stored answers, profiles
--
-- contract 1.1 "ship a product" (additions 3.1, 2.2, 2.5, 2.6, 2.11, 3.7): a model link belongs to a
-- namespace of its workspace ('' = the workspace's own), names the shared fit it serves (`fit_ref`: a
-- namespaced model_ref differs from its fit's), and has an expiry and a deletion time (kept as a
-- tombstone, so a deleted ref answers 410 rather than 404); links from before expire 90 days (the
-- default model_ttl_days) after they were made. Usage is metered per namespace. Large answers are kept
-- 24 hours in parts of about 1 MiB (answer_url, export CSV, svc_page cursors), and each namespace may
-- have a profile.

ALTER TABLE workspace_models ADD COLUMN namespace TEXT NOT NULL DEFAULT '';
ALTER TABLE workspace_models ADD COLUMN fit_ref TEXT;
ALTER TABLE workspace_models ADD COLUMN expires_at BIGINT;
ALTER TABLE workspace_models ADD COLUMN deleted_at BIGINT;
UPDATE workspace_models SET fit_ref = model_ref, expires_at = linked_at + 7776000000;
CREATE INDEX workspace_models_by_fit ON workspace_models (fit_ref);
ALTER TABLE usage_ledger ADD COLUMN namespace TEXT NOT NULL DEFAULT '';
CREATE TABLE stored_answers (
  workspace_id TEXT NOT NULL,
  id TEXT NOT NULL,
  kind TEXT NOT NULL,
  parts INTEGER NOT NULL,
  byte_count BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX stored_answers_by_expiry ON stored_answers (expires_at);
CREATE TABLE stored_answer_parts (
  answer_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  content {{BYTES}} NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (answer_id, seq)
);
CREATE INDEX stored_answer_parts_by_expiry ON stored_answer_parts (expires_at);
CREATE TABLE profiles (
  workspace_id TEXT NOT NULL,
  namespace TEXT NOT NULL,
  body TEXT NOT NULL,
  hash TEXT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, namespace)
);
