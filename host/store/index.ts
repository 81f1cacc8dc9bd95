// The storage layer's public surface: the Store interface, its records, and the SQLite opener.
export type * from './types.ts';
export { openSqliteStore, type SqliteStoreOptions } from './sqlite.ts';
export { RETENTION_MS } from './sql-store.ts';
