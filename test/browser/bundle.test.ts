// The preview bundle and its browser stand-ins: it builds with no Node built-in, and each stand-in
// keeps the surface of the module it replaces (host/web/bundle.ts).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildPreviewBundle } from '../../host/web/bundle.ts';
import { createHash as browserCreateHash } from '../../host/web/browser/node-crypto.ts';

describe('the preview bundle', () => {
  it('builds for the browser with no Node built-in left in it', async () => {
    const js = await buildPreviewBundle();
    expect(js.length).toBeGreaterThan(10_000);
    expect(js).not.toMatch(/["']node:[a-z_]+["']/);
    expect(js).not.toMatch(/\brequire\(/);
    expect(js).not.toMatch(/\bBuffer\./);
  });

  it('uses a stand-in engine module that exports every name host/engine/index.ts exports', async () => {
    const real = Object.keys(await import('../../host/engine/index.ts')).sort();
    const standIn = Object.keys(await import('../../host/web/browser/engine.ts')).sort();
    expect(standIn).toEqual(real);
  });

  it('uses a stand-in verdicts module with the same exports and contract', async () => {
    const real = await import('../../host/operations/ask/verdicts.ts');
    const standIn = await import('../../host/web/browser/verdicts.ts');
    expect(Object.keys(standIn).sort()).toEqual(Object.keys(real).sort());
    expect(standIn.CONTRACT).toBe(real.CONTRACT);
  });

  it('uses a stand-in lever-token module with the same exports', async () => {
    const real = Object.keys(await import('../../host/operations/lever-token.ts')).sort();
    const standIn = Object.keys(await import('../../host/web/browser/lever-token.ts')).filter((k) => k !== 'UNSIGNED_LEVER_TOKEN');
    expect(standIn.sort()).toEqual(real);
  });

  it("hashes like node:crypto's SHA-256 (the stand-in behind contentHash, fitKeyOf and modelRefOf)", () => {
    const node = (d: string | Uint8Array) => createHash('sha256').update(d).digest('hex');
    for (let n = 0; n <= 200; n++) {
      const bytes = new Uint8Array(n).map((_, i) => (i * 131 + n * 7) & 255);
      expect(browserCreateHash('sha256').update(bytes).digest('hex'), `length ${n}`).toBe(node(bytes));
    }
    const text = 'customer_id,plan\n' + 'cust_0001,über ✓ 𝔘\n'.repeat(50_000);
    expect(browserCreateHash('sha256').update(text).digest('hex')).toBe(node(text));
    expect(
      browserCreateHash('sha256')
        .update('ab')
        .update(new Uint8Array([99]))
        .digest('hex'),
    ).toBe(node('abc'));
    expect(() => browserCreateHash('md5')).toThrow(/only sha256/);
  });
});
