// Random ids for rows the store names itself (workspaces, API keys): prefix + 26 lowercase base32 chars.
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lowercase

/** 26 chars x 5 bits = 130 random bits. */
export function newId(prefix: string): string {
  const bytes = randomBytes(17);
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5 && out.length < 26) {
      bits -= 5;
      out += ALPHABET[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  return prefix + out;
}
