// POST /v1/describe (docs/reference/journeys.md#describe "svc_describe"): capabilities, and every sample with a ready ask.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { AskRequestSchema } from '../../host/schemas/index.ts';
import { SAMPLES } from '../../samples/catalog.ts';
import { OPERATIONS } from '../../host/operations/index.ts';
import { connectMcp } from '../mcp/helpers.ts';
import { call, expectProblem, startTestService, type TestService } from './helpers.ts';
import { DescribeResponseSchema } from '../../host/operations/account/describe.schema.ts';

let svc: TestService;
let body: any;
beforeAll(async () => {
  svc = await startTestService();
  const r = await call(svc.url, '/v1/describe', {});
  expect(r.res.status).toBe(200);
  body = r.json;
});
afterAll(() => svc?.close());

describe('POST /v1/describe', () => {
  it('matches the response schema and needs no key', () => {
    expect(v.safeParse(DescribeResponseSchema, body).success).toBe(true);
  });

  it('lists the four question types, each with what it answers and its fields', () => {
    expect(body.question_types.map((q: any) => q.type)).toEqual(['yesno', 'score', 'choice', 'rank']);
    for (const q of body.question_types) {
      expect(q.answers.length).toBeGreaterThan(0);
      expect(q.fields.map((f: any) => f.name)).toContain('outcome_column');
    }
  });

  it('lists the six shapes of 1.0 and the snapshots grid of 1.1, and says which this server reads', () => {
    expect(body.shapes.map((s: any) => s.kind)).toEqual(['table', 'events', 'series', 'panel', 'signals', 'traces', 'snapshots']);
    expect(body.shapes.find((s: any) => s.kind === 'snapshots').features.map((f: any) => f.name)).toContain('lapsed_{H}d');
    expect(body.shapes.find((s: any) => s.kind === 'table').available).toBe(true);
  });

  it('lists answer states, limits, prices and retention', () => {
    expect(body.answer_states.map((s: any) => s.state)).toEqual(['answered', 'refused', 'not_yet']);
    expect(body.limits.inline_csv_chars.max).toBe(8_000_000);
    expect(body.limits.rank_top_k).toMatchObject({ max: 1000, default: 20 });
    expect(body.prices.answered_case.per_million).toBe(20);
    expect(body.prices.fit.free_per_month).toBe(1000);
    expect(body.retention.stored_dataset).toMatch(/24 hours/);
  });

  it('lists every sample with name, dataset_id, columns and a complete `try` ask keyed q', () => {
    expect(body.samples.map((s: any) => s.name)).toEqual(SAMPLES.map((s) => s.name));
    for (const s of body.samples) {
      expect(s.dataset_id).toBe(`sample:${s.name}`);
      expect(s.columns.length).toBeGreaterThan(0);
      expect(s.rows).toBeGreaterThan(0);
      expect(Object.keys(s.try.questions)).toEqual(['q']);
      expect(s.try.data).toEqual({ dataset_id: s.dataset_id });
      expect(v.safeParse(AskRequestSchema, s.try).success).toBe(true);
    }
  });

  it('accepts an empty body, with or without a content type', async () => {
    const bare = await fetch(`${svc.url}/v1/describe`, { method: 'POST' });
    expect(bare.status).toBe(200);
    const empty = await call(svc.url, '/v1/describe', undefined, { raw: '' });
    expect(empty.res.status).toBe(200);
  });

  it('refuses properties (docs/reference/journeys.md#describe: no properties allowed)', async () => {
    const r = await call(svc.url, '/v1/describe', { verbose: true });
    expectProblem(r, 422, 'invalid_request');
    expect(r.json.field).toBe('verbose');
  });
});

describe('contract 1.1 (docs/reference/journeys.md#describe)', () => {
  it('says 1.1.0 in describe, the OpenAPI document and the MCP server', async () => {
    expect(body.interface_version).toBe('1.1.0');
    expect(body.contract).toBe('outcome-question/1.1.0');
    expect((await (await fetch(`${svc.url}/openapi.json`)).json()).info.version).toBe('1.1.0');
    const mcp = await connectMcp(svc.url);
    expect(mcp.getServerVersion()).toMatchObject({ name: 'outcome-question-service', version: '1.1.0' });
    await mcp.close();
  });

  it('lists the five journeys of docs/reference/journeys.md#journeys in order, each with first calls naming real operations', () => {
    expect(body.journeys.map((j: any) => j.title)).toEqual(['Try it', 'Ask your data', 'Ship a product', 'Run it', 'Prove it']);
    // svc_schedule / svc_delete_schedule are named by Run it before this branch serves them
    const known = new Set([...OPERATIONS.map((o) => o.name), 'svc_schedule', 'svc_delete_schedule']);
    for (const j of body.journeys) {
      expect(j.first_calls.length).toBeGreaterThan(2);
      for (const c of j.first_calls) {
        expect(known.has(c.operation), `${j.name}: ${c.operation}`).toBe(true);
        expect(c.does.length).toBeGreaterThan(0);
        // each call either is ready to send or says what it needs
        expect(c.body !== undefined || c.needs?.length > 0, `${j.name}: ${c.operation}`).toBe(true);
      }
    }
    expect(body.journeys[0].first_calls.map((c: any) => c.operation)).toEqual([
      'svc_describe',
      'svc_ask',
      'svc_poll',
      'svc_verify',
      'svc_map',
      'svc_backtest',
    ]);
    expect(body.journeys[0].first_calls[1].body).toEqual(SAMPLES[0].try);
  });

  // Every ready body sent as it is, with a registered test key, answering 200 or 202: run (at the route each
  // call names, and over MCP too) by test/http/journeys.test.ts, on the same describe reply.
});

describe('every sample `try` from describe, sent as is with a registered test key', () => {
  for (const sample of SAMPLES) {
    it(`${sample.name} gives ${sample.expected_state}`, async () => {
      const key = (await call(svc.url, '/v1/agents/register')).json.api_key;
      const ask = body.samples.find((s: any) => s.name === sample.name).try;
      const r = await call(svc.url, '/v1/ask', ask, { key });
      expect(r.res.status).toBe(200);
      expect(r.json.answers.q.state).toBe(sample.expected_state);
      expect(r.json.billable_decisions).toBe(0);
    });
  }
});
