// Signed link tokens (host/signing/hmac-token.ts): a token opens only as it was signed, never as another
// spelling of the same signature bytes (base64url's unused low bits of the last character).
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { tokenCodec } from '../../host/signing/hmac-token.ts';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

it('opens a token as signed, and no token whose last character differs only in its unused bits', () => {
  const codec = tokenCodec('test');
  const secret = randomBytes(32);
  for (let i = 0; i < 64; i++) {
    const token = codec.sign(secret, { i });
    expect(codec.open(secret, token)).toEqual({ i });
    const last = B64.indexOf(token.at(-1)!);
    // the same 4 significant bits with the 2 unused ones set otherwise: the same bytes, another string
    for (let low = 0; low < 4; low++) {
      const twin = (last & ~3) | low;
      if (twin === last) continue;
      expect(codec.open(secret, token.slice(0, -1) + B64[twin])).toBeNull();
    }
  }
});
