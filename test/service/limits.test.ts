// Spec 8 limits over real HTTP: each at its edge (accepted) and one past it (422 naming the field).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSampleCsv } from '../../samples/catalog.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
let key: string;

/** A seeded table of n rows: id, x (signal), z (noise), y (outcome). */
function table(n: number): Array<Record<string, string | number>> {
  let s = 7;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  return Array.from({ length: n }, (_, i) => {
    const x = Math.round(rnd() * 100);
    return { id: `r${i}`, x, z: Math.round(rnd() * 100), y: rnd() < 0.15 + x / 150 ? 'yes' : 'no' };
  });
}

const saas = { data: { csv: loadSampleCsv('saas_churn') }, entity_column: 'customer_id', subject_kind: 'org' };
const yesno = { type: 'yesno', outcome_column: 'churned' };

beforeAll(async () => {
  svc = await startTestService({ pendingWaitMs: 60_000 });
  key = await svc.liveKey('limits');
});
afterAll(() => svc?.close());

async function expectField(body: object, field: string) {
  const r = await svc.post('/v1/ask', body, key);
  expect(r.status, JSON.stringify(r.body)).toBe(422);
  expect(r.body.code).toBe('invalid_request');
  expect(r.body.field).toBe(field);
}

describe('limits at the edge and one past', () => {
  it('data.rows: 10,000 accepted, 10,001 refused', async () => {
    const rows = table(10_001);
    const ok = await svc.post('/v1/ask', { data: { rows: rows.slice(0, 10_000) }, entity_column: 'id', subject_kind: 'other', questions: { q: { type: 'yesno', outcome_column: 'y' } }, cases: { ids: ['r1'] } }, key);
    expect(ok.status).toBe(200);
    await expectField({ data: { rows }, entity_column: 'id', subject_kind: 'other', questions: { q: { type: 'yesno', outcome_column: 'y' } }, cases: { ids: ['r1'] } }, 'data.rows');
  });

  it('cases.ids: 10,000 accepted (and answered), 10,001 refused', async () => {
    const rows = table(10_000);
    const ids = rows.map((r) => r.id as string);
    const body = { data: { rows }, entity_column: 'id', subject_kind: 'other', questions: { q: { type: 'yesno', outcome_column: 'y' } } };
    const ok = await svc.post('/v1/ask', { ...body, cases: { ids } }, key);
    expect(ok.status).toBe(200);
    expect(ok.body.answers.q.cases).toHaveLength(10_000);
    await expectField({ ...body, cases: { ids: [...ids, 'r0'] } }, 'cases.ids');
  });

  it('data.csv: 8,000,000 characters accepted, 8,000,001 refused', async () => {
    const header = 'id,x,pad,y\n';
    const lines: string[] = [];
    let len = header.length;
    let i = 0;
    const pad = 'p'.repeat(3900);
    while (len < 8_000_000 - 5000) {
      const line = `r${i},${i % 97},${pad}${i},${i % 5 === 0 ? 'yes' : 'no'}\n`;
      lines.push(line);
      len += line.length;
      i++;
    }
    let csv = header + lines.join('');
    const last = `r${i},1,`;
    const tail = `,no\n`;
    csv += last + 'q'.repeat(8_000_000 - csv.length - last.length - tail.length) + tail;
    expect(csv.length).toBe(8_000_000);
    const body = { data: { csv }, entity_column: 'id', subject_kind: 'other', questions: { q: { type: 'yesno', outcome_column: 'y' } }, cases: { ids: ['r1'] } };
    const ok = await svc.post('/v1/ask', body, key);
    expect(ok.status).toBe(200);
    await expectField({ ...body, data: { csv: csv + 'x' } }, 'data.csv');
  });

  it('question names: 64 characters accepted, 65 refused', async () => {
    const ok = await svc.post('/v1/ask', { ...saas, questions: { ['q'.repeat(64)]: yesno }, cases: { ids: ['cust_0001'] } }, key);
    expect(ok.status).toBe(200);
    const r = await svc.post('/v1/ask', { ...saas, questions: { ['q'.repeat(65)]: yesno }, cases: { ids: ['cust_0001'] } }, key);
    expect(r.status).toBe(422);
    expect(r.body.field).toMatch(/^questions/);
  });

  it('options: 255 accepted, 256 refused', async () => {
    const options = Array.from({ length: 256 }, (_, i) => String(i + 1));
    const q = (n: number) => ({ type: 'choice', outcome_column: 'churned', outcome_is_desirable: false, option_column: 'support_tickets', options: options.slice(0, n) });
    const ok = await svc.post('/v1/ask', { ...saas, questions: { q: q(255) }, cases: { ids: ['cust_0001'] } }, key);
    expect(ok.status).toBe(200);
    await expectField({ ...saas, questions: { q: q(256) }, cases: { ids: ['cust_0001'] } }, 'questions.q.options');
  });

  it('top_k: 1000 accepted, 1001 refused', async () => {
    const ok = await svc.post('/v1/ask', { ...saas, questions: { q: { type: 'rank', outcome_column: 'churned', top_k: 1000 } } }, key);
    expect(ok.status).toBe(200);
    expect(ok.body.answers.q.ranked).toHaveLength(800); // the record has 800 cases
    await expectField({ ...saas, questions: { q: { type: 'rank', outcome_column: 'churned', top_k: 1001 } } }, 'questions.q.top_k');
  });

  it('levels 10 / cuts 9 accepted; 11 levels refused', async () => {
    const levels = Array.from({ length: 11 }, (_, i) => `l${i}`);
    const cuts = Array.from({ length: 10 }, (_, i) => (i + 1) / 11);
    const ok = await svc.post('/v1/ask', { ...saas, questions: { q: { type: 'score', outcome_column: 'churned', levels: levels.slice(0, 10), cuts: cuts.slice(0, 9) } }, cases: { ids: ['cust_0001'] } }, key);
    expect(ok.status).toBe(200);
    await expectField({ ...saas, questions: { q: { type: 'score', outcome_column: 'churned', levels, cuts } }, cases: { ids: ['cust_0001'] } }, 'questions.q.levels');
  });

  it('option_outcomes: 33 refused', async () => {
    const option_outcomes = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`o${i}`, 'churned']));
    await expectField({ ...saas, questions: { q: { type: 'choice', outcome_is_desirable: false, option_outcomes } }, cases: { ids: ['cust_0001'] } }, 'questions.q.option_outcomes');
  });

  it('idempotency_key: 128 characters accepted, 129 refused', async () => {
    const ok = await svc.post('/v1/ask', { ...saas, questions: { q: yesno }, cases: { ids: ['cust_0001'] }, idempotency_key: 'k'.repeat(128) }, key);
    expect(ok.status).toBe(200);
    await expectField({ ...saas, questions: { q: yesno }, cases: { ids: ['cust_0001'] }, idempotency_key: 'k'.repeat(129) }, 'idempotency_key');
  });
});
