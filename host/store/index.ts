// The storage layer's public surface: the Store interface, its records, the openers and the store's typed errors.
export type * from './types.ts';
export { openSqliteStore, type SqliteStoreOptions } from './sqlite.ts';
export { openPostgresStore, type PostgresStoreOptions } from './postgres.ts';
export { openStore, type OpenStoreOptions } from './open.ts';
export { StoreConfigError, StoreError, StoreUnavailableError } from './errors.ts';
export { RETENTION_MS } from './sql-store.ts';
export { toldAnswersOf } from './track-record.ts';
