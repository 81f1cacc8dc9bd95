// Stateless /mcp: many MCP clients at once, each with its own initialize, list and call (issue 7).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, startTestService, type TestService } from './helpers.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.close());

async function session(i: number): Promise<{ tools: string[]; samples: number }> {
  const client = await connectMcp(svc.url, { name: `client-${i}` });
  try {
    const { tools } = await client.listTools();
    const described: any = await client.callTool({ name: 'svc_describe', arguments: {} });
    expect(described.isError).toBeFalsy();
    return { tools: tools.map((t) => t.name), samples: described.structuredContent.samples.length };
  } finally {
    await client.close();
  }
}

describe('concurrent MCP clients', () => {
  it.each([2, 20])('%i clients connect, list tools and call svc_describe at the same time', async (n) => {
    const results = await Promise.all(Array.from({ length: n }, (_, i) => session(i)));
    expect(results).toHaveLength(n);
    for (const r of results) {
      expect(r.tools).toEqual(results[0].tools);
      expect(r.tools).toContain('svc_describe');
      expect(r.samples).toBeGreaterThan(0);
    }
  });

  it('keeps two connected clients working while they interleave calls', async () => {
    const [a, b] = await Promise.all([connectMcp(svc.url, { name: 'a' }), connectMcp(svc.url, { name: 'b' })]);
    try {
      for (let round = 0; round < 3; round++) {
        const [ra, rb]: any[] = await Promise.all([
          a.callTool({ name: 'svc_describe', arguments: {} }),
          b.callTool({ name: 'svc_describe', arguments: {} }),
        ]);
        expect(ra.structuredContent).toEqual(rb.structuredContent);
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
