// Content hash of a record's exact bytes (architecture.md "Data flow" step 2, spec 2.1 fit cache).
import { createHash } from 'node:crypto';

/** Lowercase hex SHA-256 of the bytes; a string is hashed as its UTF-8 encoding. */
export function contentHash(bytes: string | Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Inline rows: the record bytes are `JSON.stringify(rows)` (keys in the order given). */
export function hashRows(rows: readonly object[]): string {
  return contentHash(JSON.stringify(rows));
}
