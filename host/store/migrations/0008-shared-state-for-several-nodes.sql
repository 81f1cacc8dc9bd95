-- shared token secrets, rate-limit windows, periodic jobs and fit claims for several nodes
--
-- What N nodes on one database must share beyond the data (README "More than one machine"): the HMAC
-- secrets of lever and upload tokens (were files under each node's DATA_DIR), rate-limit counters per
-- fixed window (PostgreSQL only counts there; SQLite keeps counting in its one process), the last run of
-- each periodic job (the sweeper runs once per period across the cluster), and claims on fits being
-- run (the same fit asked on several nodes at once runs once).

CREATE TABLE service_secrets (
  purpose TEXT PRIMARY KEY,
  secret {{BYTES}} NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE TABLE rate_windows (
  bucket TEXT NOT NULL,
  window_start BIGINT NOT NULL,
  count BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (bucket, window_start)
);
CREATE INDEX rate_windows_by_expiry ON rate_windows (expires_at);
CREATE TABLE cluster_jobs (
  name TEXT PRIMARY KEY,
  last_run BIGINT NOT NULL,
  owner TEXT NOT NULL
);
CREATE TABLE fit_claims (
  fit_key TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  lease_until BIGINT NOT NULL
);
