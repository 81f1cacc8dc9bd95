// Golden answers (docs/design/house-rules.md#rules): every sample's ready `try` ask, and for table samples a rank of the
// whole record, answered by a real service and compared with the committed answers in test/golden/answers.
// Only what differs between two identical calls is left out (Verdict ids, times, signatures); the model's
// f64 bytes are compared by SHA-256. A change here is a behaviour change: regenerate with UPDATE_GOLDEN=1 and
// read the diff (a new engine build alone changes core_hash and every model_ref, nothing else).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLES, type Sample } from '../../samples/catalog.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const DIR = path.join(import.meta.dirname, 'answers');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService();
  key = await svc.liveKey('golden');
});
afterAll(() => svc?.close());

/** The parts of a Verdict that are the same for the same call: no id, times or issuer address. */
function stableVerdict(v: Record<string, unknown>): Record<string, unknown> {
  const { verdict_id: _id, computed_at: _c, expires_at: _e, issuer: _i, ...rest } = v;
  return rest;
}

function stableAnswer(answer: Record<string, any>): Record<string, unknown> {
  // model_expires_at is a time (the link's expiry, 90 days after the ask by default)
  const { model_expires_at: _expires, ...rest } = answer;
  const out: Record<string, any> = { ...rest };
  if (Array.isArray(out.verdicts)) {
    out.verdicts = out.verdicts.map((x: any) => ({
      ...(x.option !== undefined ? { option: x.option } : {}),
      verdict: stableVerdict(x.verdict),
    }));
  }
  if (Array.isArray(out.cases)) out.cases = out.cases.map(stableCase);
  if (Array.isArray(out.ranked)) out.ranked = out.ranked.map(stableCase);
  return out;
}

/** A lever token is signed with this service's own secret: its presence is kept, not its bytes. */
function stableCase(c: Record<string, any>): Record<string, unknown> {
  if (!Array.isArray(c.levers)) return c;
  return {
    ...c,
    levers: c.levers.map((l: any) => ({ ...l, lever_token: typeof l.lever_token === 'string' ? '<signed>' : l.lever_token })),
  };
}

async function modelSha(modelRef: string | undefined): Promise<string | null> {
  if (modelRef === undefined) return null;
  const r = await svc.post('/v1/export-model', { model_ref: modelRef }, key);
  if (r.status !== 200) return null; // a refusal keeps a model_ref but may hold no model to export
  return createHash('sha256').update(Buffer.from(r.body.model.array_base64, 'base64')).digest('hex');
}

function asksOf(s: Sample): Record<string, Record<string, unknown>> {
  const asks: Record<string, Record<string, unknown>> = { try: s.try as unknown as Record<string, unknown> };
  if (s.shape === 'table') {
    const { cases: _cases, questions, ...rest } = s.try;
    const q = questions.q as { outcome_column?: string; positive_values?: string[] };
    asks.rank = {
      ...rest,
      questions: { r: { type: 'rank', outcome_column: q.outcome_column, positive_values: q.positive_values, top_k: 25 } },
    };
  }
  return asks;
}

describe('golden answers of the samples', () => {
  for (const s of SAMPLES) {
    it(`${s.name}: the same answers, reasons, quality and model bytes as committed`, async () => {
      const got: Record<string, unknown> = {};
      for (const [name, ask] of Object.entries(asksOf(s))) {
        const r = await svc.post('/v1/ask', JSON.parse(JSON.stringify(ask)), key);
        expect(r.status, `${s.name} ${name}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(200);
        const { answers, ...reply } = r.body as { answers: Record<string, any> };
        const stable: Record<string, unknown> = {};
        for (const [q, a] of Object.entries(answers)) stable[q] = { ...stableAnswer(a), model_sha256: await modelSha(a.model_ref) };
        got[name] = { ...reply, answers: stable };
      }
      const file = path.join(DIR, `${s.name}.json`);
      if (UPDATE || !fs.existsSync(file)) {
        fs.mkdirSync(DIR, { recursive: true });
        fs.writeFileSync(file, JSON.stringify(got, null, 2) + '\n');
        if (!UPDATE) throw new Error(`${file} was missing and has been written: review it and commit it`);
      }
      expect(got).toEqual(JSON.parse(fs.readFileSync(file, 'utf8')));
    });
  }
});
