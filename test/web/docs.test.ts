// The pages the service's texts link to: each Problem's `type` / `doc_url` and the default {keys_url}
// answer with a page (docs/reference/errors.md#problem: type is {base}/problems/<code>; docs/reference/auth.md#live-keys keys_url).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBLEM_CODES } from '../../host/errors.ts';
import { call, expectProblem, startTestService, type TestService } from '../http/helpers.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.close());

const get = (url: string) => fetch(url).then(async (res) => ({ res, text: await res.text() }));

describe('documentation pages', () => {
  it("a real Problem's type and doc_url open a page about its code", async () => {
    const r = await call(svc.url, '/v1/ask', {}); // no key: 401 unauthorized
    expectProblem(r, 401, 'unauthorized');
    for (const url of [r.json.type, r.json.doc_url]) {
      const page = await get(url);
      expect(page.res.status).toBe(200);
      expect(page.res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.text).toContain('<code>unauthorized</code>');
      expect(page.text).toContain(PROBLEM_CODES.unauthorized.remedy.replace(/</g, '&#60;').replace(/>/g, '&#62;'));
    }
  });

  it('every code has its page, listed on /problems', async () => {
    const index = await get(`${svc.url}/problems`);
    expect(index.res.status).toBe(200);
    for (const code of Object.keys(PROBLEM_CODES)) {
      expect(index.text).toContain(`href="problems/${code}"`);
      const page = await get(`${svc.url}/problems/${code}`);
      expect(page.res.status, code).toBe(200);
      expect(page.text).toContain(`HTTP ${PROBLEM_CODES[code as keyof typeof PROBLEM_CODES].status}`);
    }
  });

  it('an unknown code is a 404 Problem, and no page runs script', async () => {
    expectProblem(await call(svc.url, '/problems/constructor', undefined, { method: 'GET' }), 404, 'not_found');
    const page = await get(`${svc.url}/problems/invalid_request`);
    expect(page.res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.text).not.toContain('<script');
  });

  it('the keys_url that describe and register name is a page saying how to get keys', async () => {
    const described = await call(svc.url, '/v1/describe', {});
    const keysUrl = svc.services.config.keysUrl;
    expect(JSON.stringify(described.json)).toContain(keysUrl);
    const page = await get(keysUrl);
    expect(page.res.status).toBe(200);
    expect(page.text).toContain('/v1/agents/register');
    expect(page.text).toContain('npm run keys -- create --workspace NAME');
  });
});
