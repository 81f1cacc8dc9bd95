-- upload sessions
--
-- `upload_sessions`: an upload in pieces under way (spec 3.8), its session, format and progress; its
-- pieces are the dataset's pieces, unread until the upload completes.

CREATE TABLE upload_sessions (
  dataset_id TEXT PRIMARY KEY,
  session TEXT NOT NULL,
  format TEXT NOT NULL,
  pieces INTEGER NOT NULL,
  bytes BIGINT NOT NULL,
  rows BIGINT NOT NULL,
  header TEXT,
  open_row INTEGER NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
