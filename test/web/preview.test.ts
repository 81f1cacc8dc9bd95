// The preview page in real Chromium against a real service: the page's fit and answers equal the
// service's bit for bit (the rounded answers, and the engine's unrounded f64 outputs against the service's
// engine bridge in Node), the exported model scores alike in the page, and it works offline after load.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestService, type TestService } from '../helpers/service.ts';
import { SAMPLES } from '../../samples/catalog.ts';
import { Model } from '../../host/engine/model.ts';
import { scoreCases, type ScoreOutput } from '../../host/engine/scorer.ts';
import { hashApiKey } from '../../host/runtime/keys.ts';
import { parseCsv } from '../../host/table/csv.ts';
import { f64FromBase64 } from '../../host/engine/model-json.ts';
import { ARTIFACTS, launchChromium, type Browser } from './chromium.ts';

let svc: TestService;
let browser: Browser;
let page: Page;
let testKey: string;
const requested: string[] = [];
const pageErrors: string[] = [];

type Obj = Record<string, any>;

/** Clicks `selector` and waits until the page has finished what the click started. */
async function clickAndWait(selector: string): Promise<string> {
  await page.evaluate(() => (document.body.dataset.status = 'test-clicked'));
  await page.click(selector);
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.status ?? ''), null, { timeout: 90_000 });
  return page.evaluate(() => document.body.dataset.status!);
}

async function runSample(name: string, cases: 'all' | 'ids', type?: string): Promise<{ body: Obj; ask: Obj }> {
  await page.selectOption('#sample', name); // fills the form with the sample's own question
  await page.selectOption('#cases-mode', cases);
  if (type) await page.selectOption('#type', type);
  expect(await clickAndWait('#run'), (await page.textContent('#run-line')) ?? '').toBe('done');
  return page.evaluate(() => ({ body: window.oqPreview.app!.lastPreview!.body, ask: window.oqPreview.app!.lastAsk! }));
}

const bytesOf = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** Every value equal by Object.is and the bytes equal (NaN payloads and -0 included). */
function expectSameF64(a: Float64Array, b: Float64Array, what: string): void {
  expect(a.length, what).toBe(b.length);
  const differing: number[] = [];
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) differing.push(i);
  expect(differing.slice(0, 10), what).toEqual([]);
  expect(Buffer.compare(bytesOf(a), bytesOf(b)), what).toBe(0);
}

/** The page's last section-5 scoring: its model and the engine's unrounded outputs, from their bytes. */
async function pageExact(): Promise<{
  from: string;
  modelRef: string | null;
  model: Float64Array;
  p: Float64Array;
  contributions: Float64Array;
}> {
  const e = await page.evaluate(() => {
    const scoring = window.oqPreview.app!.scoring;
    return { from: scoring.last!.from, modelRef: scoring.last!.modelRef, exact: scoring.exactBase64()! };
  });
  return {
    from: e.from,
    modelRef: e.modelRef,
    model: f64FromBase64(e.exact.model),
    p: f64FromBase64(e.exact.p),
    contributions: f64FromBase64(e.exact.contributions),
  };
}

/** The service's stored model for `modelRef` (test key's workspace) scored on every saas_churn row in Node. */
async function serviceScores(modelRef: string): Promise<{ model: Model; node: ScoreOutput }> {
  const workspace = (await svc.services.store.findApiKeyByHash(hashApiKey(testKey)))!.workspace_id;
  const rec = await svc.services.store.getModelByRef(workspace, modelRef);
  expect(rec, modelRef).not.toBeNull();
  const model = Model.fromBytes(rec!.bytes);
  const csv = fs.readFileSync(path.resolve(import.meta.dirname, '../../samples/saas_churn.csv'), 'utf8');
  return { model, node: scoreCases(svc.services.engine, model, parseCsv(csv)) };
}

beforeAll(async () => {
  browser = await launchChromium();
  svc = await startTestService({ pendingWaitMs: 120_000 });
  testKey = await svc.testKey();
  page = await browser.context.newPage();
  page.on('request', (r) => requested.push(r.url()));
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(svc.url + '/');
  await page.waitForFunction(() => document.body.dataset.status !== 'loading', null, { timeout: 60_000 });
  expect(await page.evaluate(() => document.body.dataset.status), (await page.textContent('#engine-line')) ?? '').toBe('ready');
});

afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe('the preview page', () => {
  it('is served from this origin with a same-origin CSP, and serves the bundle, the engine and the samples', async () => {
    const res = await fetch(svc.url + '/');
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval'");
    expect(csp).toContain("connect-src 'self'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const types = {
      '/preview.js': 'text/javascript; charset=utf-8',
      '/preview.css': 'text/css; charset=utf-8',
      '/engine.wasm': 'application/wasm',
      '/samples/saas_churn.csv': 'text/csv; charset=utf-8',
    };
    for (const [p, type] of Object.entries(types)) {
      const r = await fetch(svc.url + p);
      expect(r.status, p).toBe(200);
      expect(r.headers.get('content-type'), p).toBe(type);
    }
    expect((await fetch(svc.url + '/samples/secrets.csv')).status).toBe(404);
    expect(await page.textContent('#core-hash')).toBe(svc.services.engine.coreHash);
  });

  it("previews saas_churn's own question on all 800 cases, and every p equals the service's bit for bit", async () => {
    await page.selectOption('#sample', 'saas_churn');
    expect(await page.inputValue('#entity')).toBe('customer_id');
    expect(await page.inputValue('#outcome')).toBe('churned');
    expect(await page.inputValue('#type')).toBe('yesno');
    const { body, ask } = await runSample('saas_churn', 'all');
    expect(ask.data).toEqual({ dataset_id: 'sample:saas_churn' });
    expect(ask.cases.ids).toHaveLength(800);
    const mine = body.answers.q;
    expect(mine.state).toBe('answered');
    expect(mine.cases).toHaveLength(800);

    const served = await svc.post('/v1/ask', ask, testKey);
    expect(served.status).toBe(200);
    const theirs = served.body.answers.q;
    expect(mine.model_ref).toBe(theirs.model_ref);
    expect(body.record.content_hash).toBe(served.body.record.content_hash);
    expect(mine.quality).toEqual(theirs.quality);
    const differing = mine.cases.filter(
      (c: Obj, i: number) => c.entity_id !== theirs.cases[i].entity_id || !Object.is(c.p, theirs.cases[i].p),
    );
    expect(differing).toEqual([]);
    expect(mine.cases.map((c: Obj) => c.reasons)).toEqual(theirs.cases.map((c: Obj) => c.reasons));

    // The page's own comparison, through its form, says the same.
    await page.fill('#api-key', testKey);
    expect(await clickAndWait('#ask-service')).toBe('done');
    expect(await page.getAttribute('#agreement-result', 'data-agree')).toBe('true');
    expect(await page.textContent('#agreement-result')).toContain('800 of 800 cases with p equal bit for bit');
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'preview-saas_churn.png'), fullPage: true });
    expect(await page.locator('#terms-chart svg.panel').count()).toBeGreaterThan(0);
  });

  it("fits the service's model bit for bit, and its unrounded p and contributions equal the service's engine bridge in Node", async () => {
    // Section 5 scores with this page's own fit after a preview: every row of saas_churn.
    expect(await clickAndWait('#score-record')).toBe('done');
    const mine = await pageExact();
    expect(mine.from).toMatch(/^this page's fit mr1_/);
    const { model, node } = await serviceScores(mine.modelRef!);
    expectSameF64(mine.model, model.array, 'model array');
    expectSameF64(mine.p, node.p, 'p');
    expectSameF64(mine.contributions, node.contributions, 'contributions');
  });

  it("loads the service's exported model and scores the same 800 cases in the page bit for bit", async () => {
    expect(await clickAndWait('#export-model')).toBe('done');
    expect(await page.textContent('#export-result')).toContain("800 of 800 cases have the service's p bit for bit");
    // Unrounded too: the loaded model scores the record exactly as the service's engine does.
    expect(await clickAndWait('#score-record')).toBe('done');
    const mine = await pageExact();
    expect(mine.from).toMatch(/^the service's model mr1_/);
    const { node } = await serviceScores(mine.modelRef!);
    expectSameF64(mine.p, node.p, 'p');
    expectSameF64(mine.contributions, node.contributions, 'contributions');
  });

  for (const sample of SAMPLES.filter((s) => s.shape === 'table')) {
    const type = (sample.try.questions.q as Obj).type;
    it(`answers ${sample.name}'s own ${type} question on its try cases as the service does (${sample.expected_state})`, async () => {
      const { body, ask } = await runSample(sample.name, 'ids');
      expect(ask.questions).toEqual(sample.try.questions);
      expect(ask.cases).toEqual(sample.try.cases);
      expect(body.answers.q.state).toBe(sample.expected_state);
      expect(await clickAndWait('#ask-service')).toBe('done');
      expect(await page.getAttribute('#agreement-result', 'data-agree')).toBe('true');
    });
  }

  it('keeps working with the network cut off after load: previews another sample offline', async () => {
    await page.context().setOffline(true);
    try {
      expect(
        await page.evaluate(() =>
          fetch('/healthz').then(
            () => 'online',
            () => 'offline',
          ),
        ),
      ).toBe('offline');
      const { body } = await runSample('b2b_leads', 'all', 'rank');
      expect(body.answers.q.state).toBe('answered');
      expect(body.answers.q.ranked).toHaveLength(20);
      expect(body.answers.q.ranked_total).toBe(800);
      expect(await page.locator('#cases-table tbody tr').count()).toBe(20);
    } finally {
      await page.context().setOffline(false);
    }
  });

  it('previews a picked CSV file; sent as data.csv with a live key, the service agrees', async () => {
    const csv = fs.readFileSync(path.resolve(import.meta.dirname, '../../samples/saas_churn.csv'));
    await page.setInputFiles('#file', { name: 'my-customers.csv', mimeType: 'text/csv', buffer: csv });
    await page.waitForFunction(() => document.querySelector('#record-line')!.textContent!.startsWith('my-customers.csv'));
    await page.selectOption('#outcome', 'churned');
    await page.selectOption('#type', 'score');
    await page.selectOption('#cases-mode', 'all');
    expect(await clickAndWait('#run')).toBe('done');
    const ask = await page.evaluate(() => window.oqPreview.app!.lastAsk!);
    expect(ask.data).toEqual({ csv: csv.toString('utf8') });
    await page.fill('#api-key', await svc.liveKey());
    expect(await clickAndWait('#ask-service')).toBe('done');
    expect(await page.getAttribute('#agreement-result', 'data-agree')).toBe('true');
  });

  it('shows a CSV problem in a picked file instead of fitting', async () => {
    await page.setInputFiles('#file', { name: 'broken.csv', mimeType: 'text/csv', buffer: Buffer.from('a,b\n1,2\n3\n') });
    await page.waitForFunction(() => document.querySelector('#record-line .error') !== null);
    expect(await page.textContent('#record-line')).toContain('Line 3 has 1 field; the header has 2.');
  });

  it('loaded nothing from another origin and raised no page errors', () => {
    expect(requested.filter((u) => !u.startsWith(svc.url + '/') && !u.startsWith('data:'))).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
