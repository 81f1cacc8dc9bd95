// The store's own error for "the database cannot be reached right now": callers answer 503 and retry;
// nothing was written (a transaction that met it was rolled back).
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}
