-- drift reports on the refit link, answers per workspace, task attempts, idempotency leases
--
-- A refit's drift report moves from `answers` (kept 24 hours, keyed by id alone, so a second
-- workspace's report of the same shared model_ref was dropped) to its workspace's refit link,
-- kept as long as the link (wire.md "The other operations": no_prior only without refit_of);
-- reports still in `answers` are carried over. `answers` is keyed per workspace. Tasks count their
-- starts (a task that keeps killing its process is given up). An in-flight idempotency record
-- carries its owner's lease, so a retry after a crash takes it over (wire.md "Idempotency"); rows
-- from before have no lease and count as stale.

ALTER TABLE workspace_models ADD COLUMN drift TEXT;
UPDATE workspace_models SET drift = (
  SELECT a.body FROM answers a
  WHERE a.id = 'drift_' || workspace_models.model_ref AND a.workspace_id = workspace_models.workspace_id
) WHERE refit_of IS NOT NULL;
CREATE TABLE answers_v2 (
  workspace_id TEXT NOT NULL,
  id TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, id)
);
INSERT INTO answers_v2 (workspace_id, id, body, created_at)
  SELECT workspace_id, id, body, created_at FROM answers WHERE id NOT LIKE 'drift!_%' ESCAPE '!';
DROP TABLE answers;
ALTER TABLE answers_v2 RENAME TO answers;
CREATE INDEX answers_by_age ON answers (created_at);
ALTER TABLE tasks ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
UPDATE tasks SET attempts = 1 WHERE status = 'running';
ALTER TABLE idempotency_records ADD COLUMN lease_owner TEXT;
ALTER TABLE idempotency_records ADD COLUMN lease_until BIGINT;
