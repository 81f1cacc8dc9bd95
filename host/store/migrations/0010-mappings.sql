-- mappings
--
-- additions 2.7 mappings, per workspace and namespace ('' = its own).

CREATE TABLE mappings (
  workspace_id TEXT NOT NULL,
  namespace TEXT NOT NULL,
  mapping_id TEXT NOT NULL,
  request TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, namespace, mapping_id)
);
