-- lz4 compression for dataset pieces and fitted models (PostgreSQL)
--
-- PostgreSQL only: the big bytea columns (dataset pieces, fitted models) are compressed with lz4
-- instead of the default pglz. Measured here (PostgreSQL 15, 100 pieces of 1 MiB of CSV appended
-- and read back through the store, medians of 5, two runs on a shared 2-core machine): writing took
-- 5.7-7.1 s with pglz and 1.3-1.6 s with lz4; reading 1.0-1.6 s with either; on disk 68 MB with
-- pglz, 79 MB with lz4 (109 MB uncompressed). Values stored before keep pglz and stay readable.
-- SQLite stores blobs as they are: nothing to do there.

ALTER TABLE dataset_pieces ALTER COLUMN content SET COMPRESSION lz4;
ALTER TABLE fits ALTER COLUMN bytes SET COMPRESSION lz4;
