// The client's own logic, without a service: how a file is cut into upload pieces (CSV at row ends outside
// quotes, each piece with the header; other formats as raw slices), how Retry-After is read, and that a
// 503 with Retry-After is waited out and retried while a 422 is not (a loopback HTTP server plays the
// overloaded service: what is under test is the client's reading of the protocol).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryAfterMs, ServiceClient, ServiceError } from '../../host/client/client.ts';
import { formatOf, piecesOf } from '../../host/client/upload.ts';

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const bytes = (s: string) => new TextEncoder().encode(s);

describe('piecesOf', () => {
  it('cuts a CSV at row ends, never inside a quoted field, and repeats the header in every piece', () => {
    const header = 'id,note\n';
    const rows = Array.from({ length: 40 }, (_, i) => `r${i},"line one\nline two, ""quoted"""\n`);
    const csv = header + rows.join('');
    const pieces = piecesOf(bytes(csv), 120);
    expect(pieces.length).toBeGreaterThan(5);
    for (const p of pieces) {
      expect(p.length).toBeLessThanOrEqual(120);
      expect(text(p).startsWith(header)).toBe(true);
    }
    // Joined back (less the repeated headers), the pieces are the file byte for byte.
    expect(header + pieces.map((p) => text(p).slice(header.length)).join('')).toBe(csv);
  });

  it('keeps a last row without a newline, and refuses a row no piece can hold', () => {
    const pieces = piecesOf(bytes('a,b\n1,2\n3,4'), 10);
    expect(pieces.map(text)).toEqual(['a,b\n1,2\n', 'a,b\n3,4']);
    expect(() => piecesOf(bytes(`a,b\n${'x'.repeat(50)},1\n`), 20)).toThrow(/longer than a piece can hold/);
  });

  it('slices gzip and Parquet files raw', () => {
    const gz = new Uint8Array(25).fill(7);
    gz.set([0x1f, 0x8b]);
    expect(formatOf(gz)).toBe('gzip');
    expect(piecesOf(gz, 10).map((p) => p.length)).toEqual([10, 10, 5]);
    const pq = new Uint8Array(12).fill(1);
    pq.set(bytes('PAR1'));
    expect(formatOf(pq)).toBe('parquet');
    expect(piecesOf(pq, 5).map((p) => p.length)).toEqual([5, 5, 2]);
  });
});

describe('retryAfterMs', () => {
  it('reads seconds, an HTTP date, or the body’s retry_after_ms', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs('0.5')).toBe(500);
    const inFive = new Date(Date.now() + 5000).toUTCString();
    expect(retryAfterMs(inFive)).toBeGreaterThan(3000);
    expect(retryAfterMs(null, { retry_after_ms: 750 })).toBe(750);
    expect(retryAfterMs(null, {})).toBeNull();
  });
});

describe('ServiceClient retries', () => {
  let server: http.Server;
  let url: string;
  const seen: Array<{ path: string; auth?: string; body: string }> = [];
  beforeAll(async () => {
    let busy = 2;
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({ path: req.url ?? '', auth: req.headers.authorization, body });
        if (req.url === '/v1/ask' && busy-- > 0) {
          res.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '1' });
          return res.end(JSON.stringify({ code: 'overloaded', detail: 'busy' }));
        }
        if (req.url === '/v1/bad') {
          res.writeHead(422, { 'content-type': 'application/problem+json' });
          return res.end(JSON.stringify({ code: 'invalid_request', field: 'x', detail: 'x is wrong', remedy: 'fix x' }));
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'done', answers: {} }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it('waits out a 503 for its Retry-After, then gets the reply; the same idempotency key every time', async () => {
    const waits: number[] = [];
    const client = new ServiceClient({ baseUrl: url, apiKey: 'svck_test_x', sleep: async (ms) => void waits.push(ms) });
    const reply = await client.ask({ questions: {} });
    expect(reply.status).toBe('done');
    expect(waits).toEqual([1000, 1000]);
    const asks = seen.filter((s) => s.path === '/v1/ask');
    expect(asks).toHaveLength(3);
    expect(asks.every((a) => a.auth === 'Bearer svck_test_x')).toBe(true);
    const keys = new Set(asks.map((a) => JSON.parse(a.body).idempotency_key));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^cli-/);
  });

  it('does not retry a 422: it throws the problem with its field and remedy', async () => {
    const client = new ServiceClient({ baseUrl: url, sleep: async () => undefined });
    const before = seen.length;
    const err = await client.post('/v1/bad', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).status).toBe(422);
    expect((err as ServiceError).problem).toMatchObject({ field: 'x', remedy: 'fix x' });
    expect(seen.length - before).toBe(1);
  });
});
