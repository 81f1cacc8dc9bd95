// HTTP test helpers: small fetch wrappers over the one test service (test/helpers/service.ts); every
// Problem is checked for the docs/reference/errors.md#problem fields the same way.
import { expect } from 'vitest';

export { startTestService, type TestService } from '../helpers/service.ts';

export interface CallOptions {
  key?: string;
  headers?: Record<string, string>;
  method?: string;
  /** A raw body sent as is (string or bytes); otherwise `body` is JSON-encoded. */
  raw?: BodyInit;
}

/** POSTs `body` as JSON (unless opts.raw) and returns the response with its parsed JSON. */
export async function call(base: string, route: string, body?: unknown, opts: CallOptions = {}): Promise<{ res: Response; json: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
  if (opts.key !== undefined) headers.authorization = `Bearer ${opts.key}`;
  const init: RequestInit = { method: opts.method ?? 'POST', headers };
  if (opts.raw !== undefined) init.body = opts.raw;
  else if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(base + route, init);
  const text = await res.text();
  let json: any;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = text;
  }
  return { res, json };
}

/** docs/reference/errors.md#problem: content type, required fields, status, code, type and request id. */
export function expectProblem(r: { res: Response; json: any }, status: number, code: string, baseUrl?: string): void {
  const { res, json } = r;
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  for (const f of ['type', 'title', 'detail', 'code', 'remedy']) {
    expect(typeof json[f], `problem.${f}`).toBe('string');
    expect(json[f].length, `problem.${f}`).toBeGreaterThan(0);
  }
  expect(json.status).toBe(status);
  expect(json.code).toBe(code);
  expect(typeof json.request_id).toBe('string');
  expect(json.request_id).toBe(res.headers.get('x-request-id'));
  expect(json.type).toMatch(new RegExp(`/problems/${code}$`));
  if (baseUrl !== undefined) expect(json.type).toBe(`${baseUrl}/problems/${code}`);
}
