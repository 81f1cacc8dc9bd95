// host/signing/sha256.ts: the plain-TypeScript SHA-256 behind fit keys, model_refs and the page's record
// hash gives exactly node:crypto's digest, so the page and the service name the same fit the same way.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../host/signing/sha256.ts';
import { contentHash } from '../../host/table/hash.ts';

const node = (d: string | Uint8Array) => createHash('sha256').update(d).digest('hex');

describe('sha256Hex', () => {
  it('equals node:crypto on every length across block boundaries', () => {
    for (let n = 0; n <= 200; n++) {
      const bytes = new Uint8Array(n).map((_, i) => (i * 131 + n * 7) & 255);
      expect(sha256Hex(bytes), `length ${n}`).toBe(node(bytes));
    }
  });

  it('hashes text as UTF-8, as contentHash does (the page hashes a record with it)', () => {
    const text = 'customer_id,plan\n' + 'cust_0001,über ✓ 𝔘\n'.repeat(50_000);
    expect(sha256Hex(text)).toBe(node(text));
    expect(sha256Hex(text)).toBe(contentHash(text));
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
