// /docs in real Chromium: the API reference Swagger UI renders from /openapi.json (every operation, under
// the page's strict CSP, nothing refused), a guide rendered from docs/, links between them, and the pages
// that link to /docs. Screenshots go to test-artifacts/ for a person to look at.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderMarkdown, slugOf } from '../../host/web/docs-site.ts';
import markdownIt from 'markdown-it';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ARTIFACTS, launchChromium, type Browser } from './chromium.ts';

let svc: TestService;
let browser: Browser;
beforeAll(async () => {
  svc = await startTestService();
  browser = await launchChromium();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

/** Opens `url` in a fresh page that records every CSP violation and script error. */
async function open(url: string) {
  const page = await browser.context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/favicon/.test(m.text())) errors.push(m.text());
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      const w = window as unknown as { violations?: string[] };
      (w.violations ??= []).push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  const res = await page.goto(url);
  return { page, res, errors, violations: () => page.evaluate(() => (window as unknown as { violations?: string[] }).violations ?? []) };
}

describe('/docs', () => {
  it('renders every operation of /openapi.json with Swagger UI, under the strict CSP, nothing refused', async () => {
    const spec = await (await fetch(`${svc.url}/openapi.json`)).json();
    const operations = Object.values(spec.paths as Record<string, object>).flatMap((p) => Object.keys(p)).length;
    const { page, res, errors, violations } = await open(`${svc.url}/docs`);
    expect(res!.status()).toBe(200);
    const csp = res!.headers()['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toMatch(/unsafe-(eval|inline)|https?:/);
    await page.waitForSelector('body[data-status="ready"]');
    await page.waitForFunction((n) => document.querySelectorAll('.opblock').length >= n, operations);
    const paths = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.textContent?.replace(/\u200b/g, '').trim()));
    expect(paths).toContain('/v1/ask');
    expect(paths).toContain('/v1/backtest');
    expect(paths.length).toBe(operations);
    // grouped by resource, in the document's tag order
    const sections = await page.$$eval('.opblock-tag', (els) => els.map((e) => e.getAttribute('data-tag')));
    expect(sections).toEqual(spec.tags.map((t: { name: string }) => t.name));
    // open one operation: its description and request body render
    await page.click('#operations-ask-svc_ask .opblock-summary');
    await page.waitForSelector('#operations-ask-svc_ask .opblock-description-wrapper');
    expect(await page.textContent('#operations-ask-svc_ask')).toContain('Answers typed questions');
    await page.screenshot({ path: path.join(ARTIFACTS, 'docs-api.png'), fullPage: false });
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('renders a guide from docs/, its tables and code, and its links lead to other pages', async () => {
    const { page, res, errors, violations } = await open(`${svc.url}/docs/guides/map-your-tables.md`);
    expect(res!.status()).toBe(200);
    expect(res!.headers()['content-security-policy']).toMatch(/^default-src 'none'/);
    expect(await page.textContent('h1')).toBe('Map your tables');
    expect(await page.locator('pre code').count()).toBeGreaterThan(0);
    expect(await page.locator('main a[href="../reference/map.md#snapshots"]').count()).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(ARTIFACTS, 'docs-guide.png'), fullPage: false });
    await page.click('main a[href="../reference/map.md#snapshots"]');
    await page.waitForURL(/\/docs\/reference\/map\.md#snapshots$/);
    expect(await page.locator('#snapshots').count()).toBe(1);
    expect(await page.textContent('h1')).toContain('Suggest, map and backtest');
    await page.goto(`${svc.url}/docs/reference/errors.md`);
    expect(await page.locator('table tr').count()).toBeGreaterThan(60);
    await page.screenshot({ path: path.join(ARTIFACTS, 'docs-reference.png'), fullPage: false });
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('is linked from the preview page, /problems and /keys', async () => {
    for (const p of ['/', '/problems', '/keys']) {
      const html = await (await fetch(svc.url + p)).text();
      expect(html, p).toContain('href="/docs"');
    }
  });

  it('serves only the markdown of docs/, never a file beside or above it', async () => {
    for (const p of [
      '/docs/../package.json',
      '/docs/%2e%2e/package.json',
      '/docs/%2e%2e/README.md',
      '/docs/guides/none.md',
      '/docs/guides',
    ]) {
      const res = await fetch(svc.url + p);
      expect(res.status, p).toBe(404);
    }
    // a folder goes to its index
    for (const [from, to] of [
      ['/docs/', '/docs'],
      ['/docs/reference/', '/docs/reference/README.md'],
      ['/docs/guides/', '/docs/README.md'],
    ]) {
      const res = await fetch(svc.url + from, { redirect: 'manual' });
      expect(res.status, from).toBe(301);
      expect(new URL(res.headers.get('location')!, svc.url).pathname, from).toBe(to);
    }
    const ok = await fetch(`${svc.url}/docs/README.md`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).not.toContain('<script');
  });
});

describe('the markdown renderer', () => {
  const md = markdownIt({ html: false });

  it('escapes raw HTML but keeps the docs anchors, and links no javascript: URL', () => {
    const html = renderMarkdown(
      md,
      '<a id="cases"></a>\n# Title\n\n<script>alert(1)</script> <img src=x onerror=alert(1)> <a id="x" onclick="alert(1)"></a>\n\n[bad](javascript:alert(1))',
    );
    expect(html).toContain('<a id="cases"></a>');
    expect(html).not.toMatch(/<script|<img|onclick="|href="javascript:/);
    expect(html).toContain('&lt;script&gt;');
  });

  it('gives headings the slugs the docs link to', () => {
    expect(slugOf('Ship a product (model_ref scoring, exports)')).toBe('ship-a-product-model_ref-scoring-exports');
    expect(slugOf('Event ids and `result_url`')).toBe('event-ids-and-result_url');
  });
});
