-- namespaces, model expiry and deletion, usage per namespace, stored answers, profiles
--
-- PostgreSQL only, after 0005-namespaces.sql: as migration 4: answer parts are bytea of about 1 MiB, written and read whole.
ALTER TABLE stored_answer_parts ALTER COLUMN content SET COMPRESSION lz4;
