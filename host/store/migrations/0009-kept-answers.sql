-- answers kept for the track record
--
-- contract 1.1 track record (additions 2.1): what each answered case was told
-- (yesno, score, a rank's top_k; never choice), kept for pairing with reported outcomes: one row per
-- answer and model_ref holding its cases packed (a row per case cost 60 ms on SQLite and 186 ms on
-- PostgreSQL for a 10,000-case answer, 13% and 40% of the ask; BENCHMARKS.md "Track record").

CREATE TABLE kept_answers (
  workspace_id TEXT NOT NULL,
  model_ref TEXT NOT NULL,
  answer_id TEXT NOT NULL,
  namespace TEXT NOT NULL,
  issued_at BIGINT NOT NULL,
  case_count INTEGER NOT NULL,
  cases {{BYTES}} NOT NULL,
  PRIMARY KEY (workspace_id, model_ref, answer_id)
);
