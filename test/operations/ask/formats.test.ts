// response_format (docs/reference/ask.md#response-format) on ask and poll, and where answers of any size go (3.7, 2.11): concise drops
// Verdicts, compact also lean cases, both keep the whole answer at page.answer_url; states and chances never
// differ between formats; REST answers are whole, MCP pages a large one; poll formats a pending ask's answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { churnRows } from '../../helpers/churn.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { connectMcp } from '../../mcp/helpers.ts';
import { bigRows } from '../../helpers/big-rows.ts';

let svc: TestService;
let key: string;
const rows = churnRows({ seed: 41, rows: 1500 });
const ids = rows.slice(0, 400).map((r) => r.customer_id as string);
const ask = (extra: Record<string, unknown> = {}) => ({
  data: { rows },
  entity_column: 'customer_id',
  subject_kind: 'org',
  questions: { q: { type: 'score', outcome_column: 'churned' } },
  cases: { ids: [...ids, 'nobody'] },
  band: true,
  ...extra,
});

/** POSTs and follows a 202 pending ask with svc_poll. */
async function settle(body: unknown, poll: Record<string, unknown> = {}): Promise<{ status: number; body: any; task?: string }> {
  let r = await svc.post('/v1/ask', body, key);
  const task = r.status === 202 ? r.body.task_id : undefined;
  for (let i = 0; i < 600 && r.status === 202; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    r = await svc.post('/v1/poll', { task_id: task, ...poll }, key);
  }
  return { ...r, task };
}

let full: any;
beforeAll(async () => {
  // a fit of bigRows (about a second) outlasts the wait and goes pending; the churn fits do not
  svc = await startTestService({ pendingWaitMs: 250 });
  key = await svc.liveKey('formats');
  const first = await settle(ask());
  expect(first.status).toBe(200);
  full = (await svc.post('/v1/ask', ask(), key)).body;
});
afterAll(() => svc?.close());

const stateAndChance = (c: any) => ({ entity_id: c.entity_id, p: c.p, p_display: c.p_display, state: c.state, level: c.level });

describe('response_format over REST', () => {
  it('full (the default) is the whole answer, however large, with no page', () => {
    expect(full.answers.q.cases).toHaveLength(401);
    expect(full.answers.q.verdicts).toHaveLength(1);
    expect(full.page).toBeUndefined();
    expect(full.answers.q.cases[400]).toEqual({ entity_id: 'nobody', state: 'not_scoreable', not_scoreable: { unknown_id: true } });
  });

  it('concise keeps the answers without Verdicts, with the whole answer at page.answer_url for 24 hours', async () => {
    const r = await svc.post('/v1/ask', ask({ response_format: 'concise' }), key);
    expect(r.status).toBe(200);
    const a = r.body.answers.q;
    expect(a.verdicts).toBeUndefined();
    expect(a.verdicts_withheld).toEqual({ count: 1, reason: 'response_format_concise' });
    expect(a.cases).toEqual(full.answers.q.cases);
    expect(r.body.page.next_cursor).toBeUndefined();
    expect(Date.parse(r.body.page.expires_at) - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    const whole = await fetch(r.body.page.answer_url);
    expect(whole.status).toBe(200);
    const body = await whole.json();
    expect(body.answers.q.verdicts).toHaveLength(1);
    expect(body.answers.q.cases).toEqual(full.answers.q.cases);
    const v = body.answers.q.verdicts[0];
    expect((await svc.post('/v1/verify', { verdict: v.verdict, signature: v.signature })).body.status).toBe('valid');
  });

  it('compact keeps each case to entity_id, p, p_display, band, level (unreadable ones keep why), about a twentieth of the size', async () => {
    const r = await svc.post('/v1/ask', ask({ response_format: 'compact' }), key);
    const a = r.body.answers.q;
    for (const c of a.cases.slice(0, 400)) expect(Object.keys(c).sort()).toEqual(['band', 'entity_id', 'level', 'p', 'p_display']);
    expect(a.cases[400]).toEqual(full.answers.q.cases[400]);
    expect(a.cases.map(stateAndChance)).toEqual(full.answers.q.cases.map(stateAndChance));
    expect(JSON.stringify(r.body).length).toBeLessThan(JSON.stringify(full).length / 10);
    expect(r.body.page.answer_url).toEqual(expect.any(String));
  });

  it('svc_poll formats a pending ask’s answer: full by default, compact when asked; the stored copy is made once', async () => {
    const big = bigRows();
    const body = {
      data: { rows: big },
      entity_column: 'id',
      subject_kind: 'other',
      questions: { q: { type: 'yesno', outcome_column: 'y', outcome_is_desirable: false } },
      cases: { ids: big.slice(0, 300).map((r) => r.id) },
    };
    const whole = await settle(body);
    expect(whole.task).toEqual(expect.any(String));
    expect(whole.body.answers.q.verdicts).toHaveLength(1);
    const compact = await svc.post('/v1/poll', { task_id: whole.task, response_format: 'compact' }, key);
    expect(compact.status).toBe(200);
    expect(compact.body.answers.q.verdicts_withheld).toEqual({ count: 1, reason: 'response_format_compact' });
    expect(compact.body.answers.q.cases[0].levers).toBeUndefined();
    const again = await svc.post('/v1/poll', { task_id: whole.task, response_format: 'compact' }, key);
    expect(again.body.page.answer_url).toBe(compact.body.page.answer_url);
  });

  it('an idempotent ask replays its formatted reply, links included', async () => {
    const body = ask({ response_format: 'concise', idempotency_key: 'fmt-1' });
    const a = await svc.post('/v1/ask', body, key);
    const b = await svc.post('/v1/ask', body, key);
    expect(b.body).toEqual(a.body);
  });
});

describe('over MCP', () => {
  it('a small answer comes whole; a large one as page one, and compact pages are fewer', async () => {
    const mcp = await connectMcp(svc.url, { key });
    try {
      const small: any = await mcp.callTool({ name: 'svc_ask', arguments: ask({ cases: { ids: ids.slice(0, 3) } }) });
      expect(small.structuredContent.page).toBeUndefined();
      expect(small.structuredContent.answers.q.verdicts).toHaveLength(1);

      const large: any = await mcp.callTool({ name: 'svc_ask', arguments: ask() });
      const one = large.structuredContent;
      expect(JSON.stringify(one).length).toBeLessThanOrEqual(60_000);
      expect(one.page.next_cursor).toEqual(expect.any(String));
      expect(one.answers.q.page.returned).toBeLessThan(401);

      const compact: any = await mcp.callTool({ name: 'svc_ask', arguments: ask({ response_format: 'compact' }) });
      // 401 lean cases fit in one page
      expect(compact.structuredContent.page.next_cursor).toBeUndefined();
      expect(compact.structuredContent.answers.q.cases).toHaveLength(401);
      expect(compact.structuredContent.answers.q.cases.map(stateAndChance)).toEqual(full.answers.q.cases.map(stateAndChance));
    } finally {
      await mcp.close();
    }
  });

  it('a pending ask polled over MCP is paged like an ask', async () => {
    const mcp = await connectMcp(svc.url, { key });
    try {
      const big = bigRows();
      const body = {
        data: { rows: big },
        entity_column: 'id',
        subject_kind: 'other',
        questions: { q: { type: 'yesno', outcome_column: 'y', positive_values: ['1'] } },
        cases: { ids: big.slice(0, 300).map((r) => r.id) },
      };
      let r: any = await mcp.callTool({ name: 'svc_ask', arguments: body });
      for (let i = 0; i < 600 && r.structuredContent.status === 'pending'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        r = await mcp.callTool({ name: 'svc_poll', arguments: { task_id: r.structuredContent.task_id } });
      }
      expect(r.structuredContent.status).toBe('done');
      expect(r.structuredContent.page.next_cursor).toEqual(expect.any(String));
      expect(JSON.stringify(r.structuredContent).length).toBeLessThanOrEqual(60_000);
    } finally {
      await mcp.close();
    }
  });
});
