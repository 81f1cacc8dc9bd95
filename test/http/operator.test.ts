// The operator's endpoints (host/http/operator.ts): /readyz answers while the store does; /metrics is off
// without METRICS_TOKEN, refuses a wrong token, and with the right one reports in Prometheus text what the
// calls before it did: requests by route and status, an ask's and a fit's durations, a 429 refusal, store
// call times, task and event-stream gauges. PostgreSQL going down (/readyz 503): test/cluster/outage.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';

const TOKEN = 'metrics-token-for-tests-0123456789';
let svc: TestService;
let off: TestService;

beforeAll(async () => {
  svc = await startTestService({ metricsToken: TOKEN, registerLimitPerHour: 1 });
  off = await startTestService();
});
afterAll(async () => {
  await svc?.close();
  await off?.close();
});

/** The value of one series line, e.g. `oq_http_requests_total{operation="/v1/ask",status="200"}`; null when absent. */
function value(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

describe('GET /readyz', () => {
  it('is 200 with the engine it runs while the store answers', async () => {
    const res = await fetch(`${svc.url}/readyz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ status: 'ready', core_hash: svc.services.engine.coreHash });
  });
});

describe('GET /metrics', () => {
  it('is off (403, says how to turn it on) without METRICS_TOKEN', async () => {
    const res = await fetch(`${off.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await res.json()).code).toBe('metrics_off');
  });

  it('refuses a missing or wrong token (401)', async () => {
    for (const headers of [{}, { authorization: `Bearer ${TOKEN}x` }, { authorization: TOKEN }] as Array<Record<string, string>>) {
      const res = await fetch(`${svc.url}/metrics`, { headers });
      expect(res.status).toBe(401);
      expect((await res.json()).code).toBe('metrics_token');
    }
  });

  it('reports requests, refusals, ask and fit durations, store calls and the gauges', async () => {
    const key = await svc.liveKey('metrics');
    const ask = await svc.post(
      '/v1/ask',
      {
        data: { dataset_id: 'sample:saas_churn' },
        entity_column: 'customer_id',
        subject_kind: 'org',
        questions: { q: { type: 'yesno', outcome_column: 'churned' } },
        cases: { ids: ['cust_0001'] },
      },
      key,
    );
    expect(ask.status).toBe(200);
    // REGISTER_LIMIT_PER_HOUR is 1 here: the second registration from this address is refused
    expect((await svc.post('/v1/agents/register', {})).status).toBe(201);
    expect((await svc.post('/v1/agents/register', {})).status).toBe(429);
    await fetch(`${svc.url}/v1/tasks/tk_00000000000000000000000000`, { headers: { authorization: `Bearer ${key}` } });

    const res = await fetch(`${svc.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(value(text, 'oq_http_requests_total{operation="/v1/ask",status="200"}')).toBe(1);
    expect(value(text, 'oq_http_requests_total{operation="/v1/agents/register",status="429"}')).toBe(1);
    // a route's pattern, never the id a caller sent
    expect(value(text, 'oq_http_requests_total{operation="/v1/tasks/:task_id",status="404"}')).toBe(1);
    expect(text).not.toContain('tk_0000');
    expect(value(text, 'oq_refusals_total{operation="/v1/agents/register",status="429"}')).toBe(1);
    expect(value(text, 'oq_ask_duration_seconds_count{status="200"}')).toBe(1);
    expect(value(text, 'oq_fit_duration_seconds_count{outcome="done"}')).toBe(1);
    expect(value(text, 'oq_fit_duration_seconds_sum{outcome="done"}')).toBeGreaterThan(0);
    expect(
      value(text, 'oq_store_call_duration_seconds_count{call="createTask"}') ??
        value(text, 'oq_store_call_duration_seconds_count{call="getModel"}'),
    ).toBeGreaterThan(0);
    expect(value(text, 'oq_tasks_running')).toBe(0);
    expect(value(text, 'oq_tasks_queued')).toBe(0);
    expect(value(text, 'oq_event_stream_clients')).toBe(0);
    expect(text).toMatch(/^# TYPE oq_lease_renewals_total counter$/m);
    expect(text).toMatch(/^# TYPE oq_tasks_claimed_total counter$/m);
    expect(text).toMatch(/^# TYPE oq_store_errors_total counter$/m);
    expect(text).toMatch(/^oq_process_resident_memory_bytes \d+/m);
  });
});
