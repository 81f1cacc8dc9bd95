// The `when` nesting cap over real HTTP (docs/reference/ask.md#shapes `when`; 16 levels of all/any, stated in describe's
// limits): 16 levels are read exactly like the flat expression, 17 are a 422 naming the 17th node.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prng } from '../../../samples/prng.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';

let svc: TestService;
let key: string;

const DAY = 86_400_000;
const T0 = Date.UTC(2024, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();

/** An event log whose big buys in the outcome window are foretold by a 'vip' event before the cutoff. */
function eventLog(): string {
  const rng = new Prng(7);
  const lines = ['id,at,event,amount'];
  for (let c = 0; c < 800; c++) {
    const id = `c${c}`;
    const positive = rng.chance(0.4);
    const n = rng.int(2, 6);
    for (let k = 0; k < n; k++) lines.push(`${id},${iso(T0 + rng.int(60, 170) * DAY)},${rng.choice(['visit', 'buy'])},${rng.int(1, 60)}`);
    if (positive) lines.push(`${id},${iso(T0 + rng.int(150, 170) * DAY)},vip,50`);
    lines.push(`${id},${iso(T0 + rng.int(171, 200) * DAY)},buy,${positive ? 150 : 20}`);
  }
  return lines.join('\n');
}

const csv = eventLog();
const leaf = { column: 'amount', op: '>=', value: 100 };
/** `levels` all/any objects nested one inside the next (alternating, outermost `all`) around `inner`. */
function nest(levels: number, inner: unknown = leaf): unknown {
  let node = inner;
  for (let i = levels - 1; i >= 0; i--) node = { [i % 2 === 0 ? 'all' : 'any']: [node] };
  return node;
}
const askWith = (when: unknown) => ({
  data: { csv },
  entity_column: 'id',
  subject_kind: 'org',
  time_column: 'at',
  shape: { kind: 'events', event_column: 'event', value_columns: ['amount'], label: { name: 'big_buy', when }, as_of: iso(T0 + 200 * DAY) },
  questions: { top: { type: 'rank', outcome_column: 'big_buy_next_30d', top_k: 50 } },
});
const WHEN = 'shape.label.when';
const path = (steps: number) => Array.from({ length: steps }, (_, i) => `.${i % 2 === 0 ? 'all' : 'any'}.0`).join('');

beforeAll(async () => {
  // the fit of an 800-case log can outlast the default pending wait on a busy machine
  svc = await startTestService({ pendingWaitMs: 60_000 });
  key = await svc.liveKey('when-depth');
});
afterAll(() => svc?.close());

describe('when nesting', () => {
  it('16 levels of all/any answer exactly as the flat expression they wrap', async () => {
    const flat = await svc.post('/v1/ask', askWith(leaf), key);
    const deep = await svc.post('/v1/ask', askWith(nest(16)), key);
    expect(flat.status).toBe(200);
    expect(deep.status).toBe(200);
    expect(flat.body.answers.top.state).toBe('answered');
    expect(deep.body.shape).toEqual(flat.body.shape);
    const a = deep.body.answers.top;
    const b = flat.body.answers.top;
    expect(a.state).toBe(b.state);
    expect(a.quality.auc).toBe(b.quality.auc);
    expect(a.ranked.map((c: { entity_id: string; p: number }) => [c.entity_id, c.p])).toEqual(
      b.ranked.map((c: { entity_id: string; p: number }) => [c.entity_id, c.p]),
    );
  });

  it('the innermost leaf of 16 levels is what decides the label (its complement labels the other cases)', async () => {
    const flat = await svc.post('/v1/ask', askWith(leaf), key);
    const other = await svc.post('/v1/ask', askWith(nest(16, { ...leaf, op: '<' })), key);
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    // every case has exactly one buy in the window, of 150 or of 20
    expect(other.body.shape.counts.positives).toBe(flat.body.shape.counts.cases - flat.body.shape.counts.positives);
  });

  it('17 levels are 422 invalid_request naming the 17th all/any', async () => {
    const r = await svc.post('/v1/ask', askWith(nest(17)), key);
    expect(r.status).toBe(422);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.body.code).toBe('invalid_request');
    expect(r.body.field).toBe(`${WHEN}${path(16)}`);
    expect(r.body.detail).toContain('at most 16 levels of all/any');
  });

  it('the first too-deep node in document order is named, whichever branch it is in', async () => {
    const when = { any: [leaf, nest(15), nest(16)] };
    const r = await svc.post('/v1/ask', askWith(when), key);
    expect(r.status).toBe(422);
    expect(r.body.field).toBe(`${WHEN}.any.2${path(15)}`);
  });

  it('a body nested 20,000 levels deep is refused as the body is read (past 64 levels of nesting), not a crash', async () => {
    const n = 20_000;
    const body = JSON.stringify(askWith('__WHEN__')).replace('"__WHEN__"', '{"all":['.repeat(n) + JSON.stringify(leaf) + ']}'.repeat(n));
    const res = await fetch(`${svc.url}/v1/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body,
    });
    expect(res.status).toBe(422);
    const problem = await res.json();
    expect(problem.code).toBe('invalid_request');
    // host/schemas/json-guard.ts: the body is level 1, shape 2, label 3, when 4; the array at level 65 is named
    expect(problem.field).toBe(`${WHEN}${'.all.0'.repeat(30)}.all`);
    expect(problem.detail).toMatch(/nested more than 64 levels deep/);
    // the service is still answering
    expect((await svc.post('/v1/describe', {})).status).toBe(200);
  });

  it('describe states the cap next to the items rule', async () => {
    const r = await svc.post('/v1/describe', {});
    expect(r.body.limits.when_all_any_items).toEqual({ min: 1, max: 16 });
    expect(r.body.limits.when_all_any_nesting_levels).toEqual({ max: 16 });
  });
});
