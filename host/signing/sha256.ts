// SHA-256, the same bytes in Node and in the browser page, for small inputs hashed on both sides (fit keys,
// model_refs, the page's record hash): @noble/hashes, an audited pure-JS implementation that runs in both
// without node:crypto. Node's own createHash is faster for large inputs and is used for them on the server
// (host/table/hash.ts); test/signing/sha256.test.ts keeps the two equal.
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** SHA-256 (FIPS 180-4) of `data`: the 32-byte digest. */
export function sha256(data: Uint8Array): Uint8Array {
  return nobleSha256(data);
}

/** Lowercase hex SHA-256 of the bytes; a string is hashed as its UTF-8 encoding. */
export function sha256Hex(data: string | Uint8Array): string {
  return bytesToHex(nobleSha256(typeof data === 'string' ? utf8ToBytes(data) : data));
}
