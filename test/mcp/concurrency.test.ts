// Stateless /mcp: many MCP clients at once, each with its own initialize, list and calls, keyed ones
// included: each registers its own test key over MCP, reconnects with it and asks a sample.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLES, type Sample } from '../../samples/catalog.ts';
import { connectMcp, deterministicParts, startTestService, type TestService } from './helpers.ts';

// The answered table samples, so clients ask different records (and fits) at the same time.
const ASKED: Sample[] = SAMPLES.filter((s) => s.shape === 'table' && s.expected_state === 'answered');

let svc: TestService;
beforeAll(async () => {
  // Every client registers a key (REGISTER_LIMIT_PER_HOUR defaults to 20 per address); no ask goes pending.
  svc = await startTestService({ registerLimitPerHour: 100, pendingWaitMs: 120_000 });
});
afterAll(() => svc?.close());

interface SessionResult {
  tools: string[];
  samples: number;
  sample: Sample;
  answer: any;
}

/** One agent: list tools, describe, get a key with register_agent, then ask a sample with that key. */
async function session(i: number): Promise<SessionResult> {
  const sample = ASKED[i % ASKED.length];
  const anonymous = await connectMcp(svc.url, { name: `client-${i}` });
  let key: string;
  let tools: string[];
  let samples: number;
  try {
    tools = (await anonymous.listTools()).tools.map((t) => t.name);
    const described: any = await anonymous.callTool({ name: 'svc_describe', arguments: {} });
    expect(described.isError).toBeFalsy();
    samples = described.structuredContent.samples.length;
    const registered: any = await anonymous.callTool({ name: 'register_agent', arguments: {} });
    expect(registered.isError, JSON.stringify(registered.structuredContent)).toBeFalsy();
    key = registered.structuredContent.api_key;
  } finally {
    await anonymous.close();
  }
  const keyed = await connectMcp(svc.url, { name: `client-${i}-keyed`, key });
  try {
    const asked: any = await keyed.callTool({ name: 'svc_ask', arguments: sample.try as any });
    expect(asked.isError, JSON.stringify(asked.structuredContent)).toBeFalsy();
    return { tools, samples, sample, answer: asked.structuredContent };
  } finally {
    await keyed.close();
  }
}

/** The REST answer to the same ask, with a key of its own, asked after the MCP clients. */
async function restAnswers(): Promise<Map<string, any>> {
  const key = await svc.testKey();
  const out = new Map<string, any>();
  for (const s of ASKED) {
    const r = await svc.post('/v1/ask', s.try, key);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    out.set(s.name, r.body);
  }
  return out;
}

describe('concurrent MCP clients', () => {
  it('has more than one sample to ask', () => {
    expect(ASKED.map((s) => s.name)).toEqual(expect.arrayContaining(['saas_churn', 'b2b_leads', 'telco_churn']));
  });

  it.each([2, 20])('%i clients list tools, register and ask a sample with their own keys at the same time, as REST answers', async (n) => {
    const results = await Promise.all(Array.from({ length: n }, (_, i) => session(i)));
    expect(results).toHaveLength(n);
    const rest = await restAnswers();
    for (const r of results) {
      expect(r.tools).toEqual(results[0].tools);
      expect(r.tools).toEqual(expect.arrayContaining(['svc_describe', 'svc_ask', 'register_agent']));
      expect(r.samples).toBe(SAMPLES.length);
      expect(r.answer.status).toBe('done');
      expect(r.answer.answers.q.state).toBe(r.sample.expected_state);
      expect(deterministicParts(r.answer), r.sample.name).toEqual(deterministicParts(rest.get(r.sample.name)));
    }
  });

  it('keeps two keyed clients working while they interleave asks of different samples', async () => {
    const [keyA, keyB] = [await svc.testKey(), await svc.testKey()];
    const [a, b] = await Promise.all([connectMcp(svc.url, { name: 'a', key: keyA }), connectMcp(svc.url, { name: 'b', key: keyB })]);
    try {
      const rest = await restAnswers();
      for (let round = 0; round < 3; round++) {
        const [sa, sb] = [ASKED[round % ASKED.length], ASKED[(round + 1) % ASKED.length]];
        const [ra, rb, da]: any[] = await Promise.all([
          a.callTool({ name: 'svc_ask', arguments: sa.try as any }),
          b.callTool({ name: 'svc_ask', arguments: sb.try as any }),
          a.callTool({ name: 'svc_describe', arguments: {} }),
        ]);
        expect(deterministicParts(ra.structuredContent), sa.name).toEqual(deterministicParts(rest.get(sa.name)));
        expect(deterministicParts(rb.structuredContent), sb.name).toEqual(deterministicParts(rest.get(sb.name)));
        expect(da.structuredContent.samples).toHaveLength(SAMPLES.length);
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
