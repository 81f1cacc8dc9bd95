// Shape errors over real HTTP (docs/reference/errors.md): a shaped ask's bad outcome or bad times are a problem+json naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService({ pendingWaitMs: 60_000 });
  key = await svc.liveKey('shape-errors');
});
afterAll(() => svc?.close());

const runs = [
  'run,at,tool,status',
  ...Array.from(
    { length: 60 },
    (_, i) => `r${i},2024-06-${String(1 + (i % 28)).padStart(2, '0')},${['x', 'y'][i % 2]},${['ok', 'error', 'timeout'][i % 3]}`,
  ),
].join('\n');
const traces = (question: Record<string, unknown>) => ({
  data: { csv: runs },
  entity_column: 'run',
  time_column: 'at',
  subject_kind: 'event',
  shape: { kind: 'traces', tool_column: 'tool' },
  questions: { fails: { type: 'rank', ...question } },
});

async function expectProblem(body: unknown, code: string, field: string) {
  const r = await svc.post('/v1/ask', body, key);
  expect(r.status, JSON.stringify(r.body)).toBeGreaterThanOrEqual(400);
  expect(r.status).toBeLessThan(500);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect([r.body.code, r.body.field]).toEqual([code, field]);
  return r.body;
}

describe('shaped asks name the field at fault', () => {
  it('traces: an outcome without a yes/no pair is positive_values_required at questions.<name>.positive_values', async () => {
    const body = await expectProblem(traces({ outcome_column: 'status' }), 'positive_values_required', 'questions.fails.positive_values');
    expect(body.detail).toContain('status');
  });

  it('traces: an outcome column the record lacks is named at questions.<name>.outcome_column', async () => {
    await expectProblem(traces({ outcome_column: 'failed' }), 'invalid_request', 'questions.fails.outcome_column');
  });

  it('traces: the same outcome with positive_values is read', async () => {
    const r = await svc.post('/v1/ask', traces({ outcome_column: 'status', positive_values: ['error', 'timeout'] }), key);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.shape.counts).toMatchObject({ rows: 60, labeled: 60, positives: 40 });
  });

  it('events: plain-number times are shape_invalid at time_column, saying what is accepted', async () => {
    const csv = ['id,at,event', ...Array.from({ length: 40 }, (_, i) => `c${i % 8},${2020 + (i % 5)},visit`)].join('\n');
    const body = await expectProblem(
      {
        data: { csv },
        entity_column: 'id',
        time_column: 'at',
        subject_kind: 'org',
        shape: { kind: 'events', label: { lapsed: true } },
        questions: { q: { type: 'rank', outcome_column: 'lapsed_30d' } },
      },
      'shape_invalid',
      'time_column',
    );
    expect(body.detail).toContain('"2020"');
    expect(body.detail).toContain('ISO 8601');
  });
});
