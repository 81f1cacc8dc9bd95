// Content hash of a record's exact bytes (docs/design/architecture.md#data-flow-2, docs/reference/ask.md#data fit cache).
import { createHash } from 'node:crypto';

/** Lowercase hex SHA-256 of the bytes; a string is hashed as its UTF-8 encoding. */
export function contentHash(bytes: string | Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Inline rows: the record bytes are `JSON.stringify(rows)` (keys in the order given). */
export function hashRows(rows: readonly object[]): string {
  return contentHash(JSON.stringify(rows));
}
