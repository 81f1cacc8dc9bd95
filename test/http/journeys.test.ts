// The journeys svc_describe lists run as written: every call names its REST route beside its tool, every
// ready body runs as it is over REST (at that route) and over MCP (as that tool), and the calls that take
// an earlier call's reply (the map's ready ask, the backtest after a map) run with it unchanged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../host/operations/index.ts';
import { connectMcp } from '../mcp/helpers.ts';
import { call, startTestService, type TestService } from './helpers.ts';

let svc: TestService;
let journeys: any[];
let key: string;
beforeAll(async () => {
  svc = await startTestService();
  journeys = (await call(svc.url, '/v1/describe', {})).json.journeys;
  key = (await call(svc.url, '/v1/agents/register')).json.api_key;
});
afterAll(() => svc?.close());

const journey = (name: string) => journeys.find((j) => j.name === name);
const callOf = (name: string, operation: string) => journey(name).first_calls.find((c: any) => c.operation === operation);

/** A journey call over REST exactly as listed: its `rest` says the method and the path. */
async function rest(c: any, body: unknown) {
  const [method, path] = c.rest.split(' ');
  expect(method).toBe('POST');
  return call(svc.url, path, body, { key });
}

describe('the journeys of svc_describe, as written', () => {
  it('name the REST route beside every tool', () => {
    const routes = new Map(OPERATIONS.map((o) => [o.name, `${o.method} ${o.path}`]));
    for (const j of journeys) for (const c of j.first_calls) expect(c.rest, `${j.name}: ${c.operation}`).toBe(routes.get(c.operation));
    expect(callOf('try_it', 'svc_ask').rest).toBe('POST /v1/ask');
  });

  it('run every ready body as it is, over REST at its route and over MCP as its tool', async () => {
    const ready = journeys.flatMap((j) => j.first_calls.filter((c: any) => c.body !== undefined).map((c: any) => [j.name, c]));
    expect(ready.length).toBeGreaterThanOrEqual(8);
    const mcp = await connectMcp(svc.url, { key });
    try {
      for (const [name, c] of ready) {
        const r = await rest(c, c.body);
        expect([200, 202], `${name}: ${c.rest} ${JSON.stringify(r.json).slice(0, 300)}`).toContain(r.res.status);
        const t: any = await mcp.callTool({ name: c.operation, arguments: c.body });
        expect(t.isError, `${name}: ${c.operation} ${JSON.stringify(t.structuredContent).slice(0, 300)}`).toBeFalsy();
      }
    } finally {
      await mcp.close();
    }
  });

  it('Try it: the backtest after the map names the mapping it read, the one the map gave', async () => {
    const mapped = await rest(callOf('try_it', 'svc_map'), callOf('try_it', 'svc_map').body);
    expect(mapped.json.status).toBe('confirmed');
    const bt = await rest(callOf('try_it', 'svc_backtest'), callOf('try_it', 'svc_backtest').body);
    expect(bt.res.status).toBe(200);
    expect(bt.json.record.mapping_id).toBe(mapped.json.mapping_id);
    expect(bt.json.record.horizon).toEqual(mapped.json.manifest.reading.horizon);
    // the same decision as a workspace with no mapping, where the sample log is read by its default reading
    const fresh = (await call(svc.url, '/v1/agents/register')).json.api_key;
    const alone = await call(svc.url, '/v1/backtest', callOf('try_it', 'svc_backtest').body, { key: fresh });
    expect(alone.json.record.mapping_id).toBeUndefined();
    expect(alone.json.decision).toBe(bt.json.decision);

    // another reading mapped later is the newest, and the reply names it; mapping_id reads the one named
    const other = await rest(callOf('try_it', 'svc_map'), { ...callOf('try_it', 'svc_map').body, horizon: { value: 30, unit: 'days' } });
    expect(other.json.mapping_id).not.toBe(mapped.json.mapping_id);
    const newest = await rest(callOf('try_it', 'svc_backtest'), callOf('try_it', 'svc_backtest').body);
    expect(newest.json.record.mapping_id).toBe(other.json.mapping_id);
    const named = await rest(callOf('try_it', 'svc_backtest'), {
      ...callOf('try_it', 'svc_backtest').body,
      mapping_id: mapped.json.mapping_id,
    });
    expect(named.json.record.mapping_id).toBe(mapped.json.mapping_id);
    expect(named.json.decision).toBe(bt.json.decision);
    const unknown = await rest(callOf('try_it', 'svc_backtest'), {
      ...callOf('try_it', 'svc_backtest').body,
      mapping_id: 'mp_00000000000000000000000000000000',
    });
    expect(unknown.json).toMatchObject({ code: 'dataset_not_built', field: 'mapping_id' });
  });

  it('Ask your data: the ask svc_map gives is sent as it is, and says when no case is open', async () => {
    const mapped = await rest(callOf('ask_your_data', 'svc_map'), { sources: [{ dataset_id: 'sample:saas_churn' }], answers: {} });
    expect(mapped.json.status, JSON.stringify(mapped.json).slice(0, 400)).toBe('confirmed');
    expect(mapped.json.ask.subject_kind).toBe('other');
    expect(mapped.json.ask_notes.subject_kind).toMatch(/person/);
    // every row of the sample has its outcome: the notes say cases.open answers none, and what to send
    expect(mapped.json.open_cases.count).toBe(0);
    expect(mapped.json.ask_notes.cases).toMatch(/No open case/);
    const asked = await rest(callOf('ask_your_data', 'svc_ask'), mapped.json.ask);
    expect(asked.res.status, JSON.stringify(asked.json).slice(0, 300)).toBe(200);

    // a sample log's record has open cases (read at as_of): no note then
    const log = await rest(callOf('try_it', 'svc_map'), callOf('try_it', 'svc_map').body);
    expect(log.json.status).toBe('confirmed');
    expect(log.json.open_cases.count).toBeGreaterThan(0);
    expect(log.json.ask_notes.cases).toBeUndefined();
    const logAsk = await rest(callOf('ask_your_data', 'svc_ask'), log.json.ask);
    expect([200, 202], JSON.stringify(logAsk.json).slice(0, 300)).toContain(logAsk.res.status);
  });

  it('Ship a product and Run it: list what the calls need (namespace for a model, cadence for a schedule)', () => {
    for (const op of ['svc_extend_model', 'svc_delete_model']) {
      expect(callOf('ship_a_product', op).needs.join(' '), op).toMatch(/namespace/);
    }
    expect(callOf('run_it', 'svc_schedule').needs.join(' ')).toMatch(/cadence/);
  });
});
