// docs/reference/limits.md#limits limits over real HTTP: each at its edge (accepted) and one past it (422 naming the field).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSampleCsv } from '../../../samples/catalog.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';

let svc: TestService;
let key: string;

/** A seeded table of n rows: id, x (signal), z (noise), y (outcome). */
function table(n: number): Array<Record<string, string | number>> {
  let s = 7;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
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
    const ok = await svc.post(
      '/v1/ask',
      {
        data: { rows: rows.slice(0, 10_000) },
        entity_column: 'id',
        subject_kind: 'other',
        questions: { q: { type: 'yesno', outcome_column: 'y' } },
        cases: { ids: ['r1'] },
      },
      key,
    );
    expect(ok.status).toBe(200);
    await expectField(
      {
        data: { rows },
        entity_column: 'id',
        subject_kind: 'other',
        questions: { q: { type: 'yesno', outcome_column: 'y' } },
        cases: { ids: ['r1'] },
      },
      'data.rows',
    );
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
    const body = {
      data: { csv },
      entity_column: 'id',
      subject_kind: 'other',
      questions: { q: { type: 'yesno', outcome_column: 'y' } },
      cases: { ids: ['r1'] },
    };
    const ok = await svc.post('/v1/ask', body, key);
    expect(ok.status).toBe(200);
    await expectField({ ...body, data: { csv: csv + 'x' } }, 'data.csv');
  });

  it('data.csv: 8,000,000 non-ASCII characters sent with every one escaped as \\uXXXX (46 MB of JSON) are accepted', async () => {
    const header = 'id,x,note,y\n';
    const lines: string[] = [];
    let len = header.length;
    for (let i = 0; len < 8_000_000 - 300; i++) {
      const line = `r${i},${i % 97},${'ж'.repeat(200)},${i % 5 === 0 ? 'да' : 'нет'}\n`;
      lines.push(line);
      len += line.length;
    }
    let csv = header + lines.join('');
    const tail = `z,1,${'ж'.repeat(8_000_000 - csv.length - 9)},нет\n`;
    csv += tail;
    expect(csv.length).toBe(8_000_000);
    const body = {
      data: { csv },
      entity_column: 'id',
      subject_kind: 'other',
      questions: { q: { type: 'yesno', outcome_column: 'y', positive_values: ['да'] } },
      cases: { ids: ['r1'] },
    };
    // JSON with every non-ASCII character as \uXXXX, as Python's json.dumps writes it by default
    const raw = JSON.stringify(body).replace(/[\u0080-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
    expect(raw.length).toBeGreaterThan(40_000_000); // far past the 24 MiB the body cap once was
    const res = await fetch(`${svc.url}/v1/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: raw,
    });
    expect(res.status, (await res.clone().text()).slice(0, 400)).toBe(200);
  });

  it('question names: 64 characters accepted, 65 refused', async () => {
    const ok = await svc.post('/v1/ask', { ...saas, questions: { ['q'.repeat(64)]: yesno }, cases: { ids: ['cust_0001'] } }, key);
    expect(ok.status).toBe(200);
    const r = await svc.post('/v1/ask', { ...saas, questions: { ['q'.repeat(65)]: yesno }, cases: { ids: ['cust_0001'] } }, key);
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('invalid_request');
    expect(r.body.field).toBe(`questions.${'q'.repeat(65)}`);
  });

  it('cases.rows: 10,000 accepted (and answered), 10,001 refused', async () => {
    const rows = table(10_001);
    const body = {
      data: { rows: rows.slice(0, 2000) },
      entity_column: 'id',
      subject_kind: 'other',
      questions: { q: { type: 'yesno', outcome_column: 'y' } },
    };
    const ok = await svc.post('/v1/ask', { ...body, cases: { rows: rows.slice(0, 10_000) } }, key);
    expect(ok.status).toBe(200);
    expect(ok.body.answers.q.cases).toHaveLength(10_000);
    await expectField({ ...body, cases: { rows } }, 'cases.rows');
  });

  it('option_outcomes: 32 accepted', async () => {
    const option_outcomes = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`o${i}`, 'churned']));
    const ok = await svc.post(
      '/v1/ask',
      { ...saas, questions: { q: { type: 'choice', outcome_is_desirable: false, option_outcomes } }, cases: { ids: ['cust_0001'] } },
      key,
    );
    expect(ok.status).toBe(200);
    expect(Object.keys(ok.body.answers.q.model_refs)).toHaveLength(32);
    expect(ok.body.fits_run).toBe(1); // one outcome and one desirability: the 32 options share one fit (docs/reference/ask.md#fits)
  });

  it('add-dataset rows: 10,000 accepted, 10,001 refused', async () => {
    const rows = table(10_001);
    const ok = await svc.post('/v1/add-dataset', { rows: rows.slice(0, 10_000) }, key);
    expect(ok.status).toBe(200);
    expect(ok.body.rows).toBe(10_000);
    const r = await svc.post('/v1/add-dataset', { rows }, key);
    expect(r.status).toBe(422);
    expect(r.body.field).toBe('rows');
  });

  it('filename: 120 characters of A-Z a-z 0-9 . _ - accepted, 121 or another character refused', async () => {
    const ok = await svc.post('/v1/add-dataset', { upload: true, filename: 'f'.repeat(116) + '.csv' }, key);
    expect(ok.status).toBe(200);
    for (const filename of ['f'.repeat(117) + '.csv', 'my file.csv', '']) {
      const r = await svc.post('/v1/add-dataset', { upload: true, filename }, key);
      expect(r.status).toBe(422);
      expect(r.body.field).toBe('filename');
    }
  });

  it('report-outcomes: 10,000 items and a 128-char event_id accepted; 10,001 items or a 129-char event_id refused', async () => {
    const scoped = await svc.liveKey('limits-outcomes', true);
    const fit = await svc.post('/v1/ask', { ...saas, questions: { q: yesno }, cases: { ids: ['cust_0001'] } }, scoped);
    const model_ref = fit.body.answers.q.model_ref;
    expect(model_ref).toMatch(/^mr1_/);
    const item = (i: number) => ({
      entity_id: `cust_${String(i % 800).padStart(4, '0')}`,
      outcome: i % 2,
      observed_at: '2026-11-01T00:00:00Z',
      event_id: `e${i}`,
    });
    const items = Array.from({ length: 10_001 }, (_, i) => item(i));
    items[0].event_id = 'e'.repeat(128);
    const ok = await svc.post('/v1/report-outcomes', { model_ref, outcomes: items.slice(0, 10_000) }, scoped);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.written + ok.body.duplicates).toBe(10_000);
    const tooMany = await svc.post('/v1/report-outcomes', { model_ref, outcomes: items }, scoped);
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.field).toBe('outcomes');
    const longId = await svc.post('/v1/report-outcomes', { model_ref, outcomes: [{ ...item(1), event_id: 'e'.repeat(129) }] }, scoped);
    expect(longId.status).toBe(422);
    // per-item problems are all-or-nothing invalid_outcomes with each item's field (docs/reference/errors.md#problem)
    expect(longId.body.code).toBe('invalid_outcomes');
    expect(longId.body.errors).toEqual([{ index: 0, field: 'outcomes.0.event_id', detail: expect.stringContaining('128') }]);
  });

  it('options: 255 accepted, 256 refused', async () => {
    const options = Array.from({ length: 256 }, (_, i) => String(i + 1));
    const q = (n: number) => ({
      type: 'choice',
      outcome_column: 'churned',
      outcome_is_desirable: false,
      option_column: 'support_tickets',
      options: options.slice(0, n),
    });
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
    const ok = await svc.post(
      '/v1/ask',
      {
        ...saas,
        questions: { q: { type: 'score', outcome_column: 'churned', levels: levels.slice(0, 10), cuts: cuts.slice(0, 9) } },
        cases: { ids: ['cust_0001'] },
      },
      key,
    );
    expect(ok.status).toBe(200);
    await expectField(
      { ...saas, questions: { q: { type: 'score', outcome_column: 'churned', levels, cuts } }, cases: { ids: ['cust_0001'] } },
      'questions.q.levels',
    );
  });

  it('option_outcomes: 33 refused', async () => {
    const option_outcomes = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`o${i}`, 'churned']));
    await expectField(
      { ...saas, questions: { q: { type: 'choice', outcome_is_desirable: false, option_outcomes } }, cases: { ids: ['cust_0001'] } },
      'questions.q.option_outcomes',
    );
  });

  it('idempotency_key: 128 characters accepted, 129 refused', async () => {
    const ok = await svc.post(
      '/v1/ask',
      { ...saas, questions: { q: yesno }, cases: { ids: ['cust_0001'] }, idempotency_key: 'k'.repeat(128) },
      key,
    );
    expect(ok.status).toBe(200);
    await expectField(
      { ...saas, questions: { q: yesno }, cases: { ids: ['cust_0001'] }, idempotency_key: 'k'.repeat(129) },
      'idempotency_key',
    );
  });
});
