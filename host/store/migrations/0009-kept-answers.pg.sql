-- answers kept for the track record
--
-- PostgreSQL only, after 0009-kept-answers.sql: as migration 4: the cases of a 10,000-case answer are about 0.3 MB, written and read whole.
ALTER TABLE kept_answers ALTER COLUMN cases SET COMPRESSION lz4;
