// The pages {site_url} links point at (docs/reference/tasks.md#watch watch_url, 3.8 upload_page): served by this service with the
// preview's security headers; their scripts talk to this origin's API only (the token stays in the path).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { PAGE_CSP } from '../../host/web/serve.ts';

let svc: TestService;
let upload: { upload_page: string; upload_pieces_url: string };
beforeAll(async () => {
  svc = await startTestService();
  upload = (await svc.post('/v1/add-dataset', { upload: true }, await svc.liveKey())).body;
});
afterAll(() => svc.close());

describe('the watch and upload pages', () => {
  it.each([
    ['watch', () => `${svc.url}/watch/sometoken.x`, '/watch.js'],
    ['upload', () => upload.upload_page, '/upload.js'],
  ])('the %s page is HTML under the page CSP that loads its own script', async (_name, url, script) => {
    const res = await fetch(url());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toBe(PAGE_CSP);
    expect(await res.text()).toContain(`<script type="module" src="${script}"></script>`);
    const js = await fetch(svc.url + script);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    const text = await js.text();
    // the scripts call only this origin's API routes of the link's token
    expect(text).toMatch(
      script === '/watch.js'
        ? /\/v1\/watch\/\$\{encodeURIComponent\(token\)\}\/events/
        : /\/v1\/uploads\/\$\{encodeURIComponent\(token\)\}/,
    );
    expect(text).not.toMatch(/https?:\/\//);
  });

  it('the upload page is on the same link as the pieces URL', () => {
    expect(upload.upload_page.split('/upload/')[1]).toBe(upload.upload_pieces_url.split('/v1/uploads/')[1]);
  });
});
