// Signed tokens (host/signing/hmac-token.ts): only the exact text the service made opens.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tokenCodec } from '../../host/signing/hmac-token.ts';

const secret = randomBytes(32);
const codec = tokenCodec('test-v1.', 200);

/** The base64url characters whose 6 bits differ from `c` only in the 2 lowest (unused at the end of 32 bytes). */
function sameBytesVariants(c: string): string[] {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const v = alphabet.indexOf(c);
  return [0, 1, 2, 3].map((low) => alphabet[(v & ~3) | low]).filter((x) => x !== c);
}

describe('tokenCodec', () => {
  it('opens what it signed, with the payload', () => {
    const token = codec.sign(secret, { a: 1, b: 'x' });
    expect(codec.open(secret, token)).toEqual({ a: 1, b: 'x' });
  });

  it('refuses a token whose last character was changed, even within the bits base64url leaves unused', () => {
    const token = codec.sign(secret, { t: 'tk_1' });
    const variants = sameBytesVariants(token.at(-1)!);
    expect(variants).toHaveLength(3);
    for (const c of variants) {
      const altered = token.slice(0, -1) + c;
      // the same signature bytes once decoded: only a comparison of the text refuses it
      expect(Buffer.from(altered.split('.')[1], 'base64url')).toEqual(Buffer.from(token.split('.')[1], 'base64url'));
      expect(codec.open(secret, altered)).toBeNull();
    }
  });

  it('refuses another secret, another context, a changed payload and a payload past the cap', () => {
    const token = codec.sign(secret, { t: 'tk_1' });
    expect(codec.open(randomBytes(32), token)).toBeNull();
    expect(tokenCodec('other-v1.').open(secret, token)).toBeNull();
    const [payload, sig] = token.split('.');
    const changed = Buffer.from(JSON.stringify({ t: 'tk_2' })).toString('base64url');
    expect(codec.open(secret, `${changed}.${sig}`)).toBeNull();
    expect(payload.length).toBeLessThan(200);
    const big = codec.sign(secret, { t: 'x'.repeat(300) });
    expect(codec.open(secret, big)).toBeNull();
  });
});
