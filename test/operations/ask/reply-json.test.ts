// askReplyJson (host/operations/ask/reply-json.ts): the ask reply written with each signed Verdict as
// the exact canonical text its signature covers, equal in value to JSON.stringify of the body.
import { describe, expect, it } from 'vitest';
import { flattenedVerify, importJWK } from 'jose';
import { KeyRing, MemorySigningKeyStore, canonicalJson, signVerdict, signedPiecesOf, signedTextOf } from '../../../host/signing/index.ts';
import { canonicalObjectJson } from '../../../host/signing/canonical-json.ts';
import { askReplyBytes, askReplyJson } from '../../../host/operations/ask/reply-json.ts';

async function signed(ring: KeyRing, cases: unknown[], option?: string) {
  const verdict = { cases, expires_at: '2099-01-01T00:00:00.000Z', kind: 'answer', small: 1e-5, verdict_id: `v${Math.random()}` };
  return { ...(option ? { option } : {}), ...(await signVerdict(ring, verdict)) };
}

describe('askReplyJson', () => {
  it('parses to the same value as JSON.stringify(body), with each Verdict spelled as its signed canonical text', async () => {
    const ring = await KeyRing.open(new MemorySigningKeyStore());
    const hostile = 'oq-verdict:00000000-0000-0000-0000-000000000000:0'; // looks like a placeholder, cannot be one
    const body = {
      status: 'done',
      answers: {
        a: { state: 'answered', cases: [{ entity_id: hostile, p: 0.5 }], verdicts: [await signed(ring, [{ entity_id: hostile, p: 0.5 }])] },
        b: { state: 'refused', reasons: ['no_finding_cleared'] },
        c: {
          state: 'answered',
          verdicts: [await signed(ring, [{ entity_id: 'é', p: 0.25 }], 'x'), await signed(ring, [{ entity_id: 'z', p: 1e-7 }], 'y')],
        },
      },
      fits_run: 0,
      note: 'naïve é', // written raw (UTF-8) outside the Verdicts
    };
    const text = askReplyJson(body);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(body)));
    // the bytes REST sends are the UTF-8 bytes of that text
    expect(Buffer.from(askReplyBytes(body)).equals(Buffer.from(text, 'utf8'))).toBe(true);
    const parsed = JSON.parse(text);
    const holders = [...parsed.answers.a.verdicts, ...parsed.answers.c.verdicts];
    expect(holders).toHaveLength(3);
    for (const h of holders) {
      const canonical = canonicalJson(h.verdict);
      expect(text).toContain(`"verdict":${canonical}`);
      // offline check on the bytes as sent: RFC 7797 detached payload
      const jwk = (await ring.jwks()).keys.find((k) => k.kid === h.signature.kid)!;
      const key = await importJWK(jwk, 'EdDSA');
      await expect(
        flattenedVerify({ protected: h.signature.protected, signature: h.signature.signature, payload: canonical }, key),
      ).resolves.toBeDefined();
    }
    expect(text).toContain('1e-05'); // the canonical spelling, not JavaScript's 0.00001
  });

  it('writes a body without signed Verdicts exactly as JSON.stringify does', () => {
    const body = {
      status: 'done',
      answers: { q: { state: 'answered', verdicts: [{ verdict: { verdict_id: 'preview' }, signature: {} }] } },
      n: 0.00001,
    };
    expect(askReplyJson(body)).toBe(JSON.stringify(body));
    expect(askReplyJson({ status: 'pending', task_id: 'tk_x' })).toBe(JSON.stringify({ status: 'pending', task_id: 'tk_x' }));
    const wide = { status: 'done', answers: { 'é😀': { state: 'refused' } } };
    expect(Buffer.from(askReplyBytes(wide)).toString('utf8')).toBe(JSON.stringify(wide));
  });
});

describe('cases shared with a signed Verdict', () => {
  it("canonicalObjectJson writes what canonicalJson writes, and hands over each value's text", () => {
    const obj = { z: [{ b: 1, a: 'é' }], a: 1e-7, m: { y: null, x: [true] }, u: undefined, '😀': 'astral', '\uffff': 0 };
    const parts = new Map<unknown, string>();
    expect(canonicalObjectJson(obj, (v, t) => parts.set(v, t))).toBe(canonicalJson(obj));
    expect(parts.get(obj.z)).toBe(canonicalJson(obj.z));
    expect(parts.has(undefined)).toBe(false);
    expect(() => canonicalObjectJson([] as unknown as Record<string, unknown>)).toThrow(TypeError);
  });

  it("a signed Verdict's cases array is frozen and remembered with its text; an answer sharing it is written from that text", async () => {
    const ring = await KeyRing.open(new MemorySigningKeyStore());
    const cases = [{ entity_id: 'a', p: 0.5, reasons: [] }];
    const holder = await signed(ring, cases);
    const shared = holder.verdict.cases as unknown[];
    expect(Object.isFrozen(shared)).toBe(true);
    expect(signedTextOf(shared)).toBe(canonicalJson(cases));
    // the Verdict's text is kept in the pieces it was signed in, its cases' text one of them as it is
    const pieces = signedPiecesOf(holder.verdict)!;
    expect(pieces.join('')).toBe(canonicalJson(holder.verdict));
    expect(signedTextOf(holder.verdict)).toBe(canonicalJson(holder.verdict));
    expect(pieces).toContain(signedTextOf(shared));
    expect(Object.isFrozen(pieces)).toBe(true);
    const body = { status: 'done', answers: { q: { type: 'yesno', cases: shared, verdicts: [holder], after: 1 } } };
    const text = askReplyJson(body);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(body)));
    expect(text.split(`"cases":${canonicalJson(cases)}`)).toHaveLength(3); // in the answer and in its Verdict
  });
});
