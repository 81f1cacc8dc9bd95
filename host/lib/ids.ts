// Random public ids: a prefix and lowercase base32 of crypto randomness (docs/reference/datasets.md#fetch-url: ds_ + 26 chars).
import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** `prefix` + 26 base32 chars (130 bits of randomness). */
export function newId(prefix: string): string {
  const bytes = randomBytes(17);
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5 && out.length < 26) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return prefix + out;
}
