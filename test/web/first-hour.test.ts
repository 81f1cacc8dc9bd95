// The page guesses right (issue "The first hour", item 13), in real Chromium against a real service: the
// outcome of a person's own CSV is guessed by name or left to them, every sample is offered (logs are asked
// of the service), the answer says which value is yes and shows the chances with the base rate, sections
// are numbered in order, and a tab-separated file is named as such. Screenshots go to test-artifacts/.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestService, tempDir, type TestService } from '../helpers/service.ts';
import { SAMPLES, loadSampleCsv } from '../../samples/catalog.ts';
import { ARTIFACTS, launchChromium, type Browser } from './chromium.ts';

let svc: TestService;
let browser: Browser;
let page: Page;
const dir = tempDir('oq-page-');

async function waitDone(): Promise<string> {
  await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.status ?? ''), null, { timeout: 90_000 });
  return page.evaluate(() => document.body.dataset.status!);
}

async function pickFile(name: string, text: string): Promise<void> {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  await page.setInputFiles('#file', file);
  await page.waitForFunction((n) => (document.getElementById('record-line')?.textContent ?? '').includes(n), name);
}

beforeAll(async () => {
  svc = await startTestService();
  browser = await launchChromium();
  page = await browser.context.newPage();
  await page.goto(`${svc.url}/`);
  await page.waitForFunction(() => document.body.dataset.status === 'ready', null, { timeout: 60_000 });
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe('the page guesses right', () => {
  it('proposes the outcome by its name, not the first two-valued column', async () => {
    // tech_support (yes/no) comes before churned; saved under another name, so it is the person's own file
    await pickFile('accounts.csv', loadSampleCsv('telco_churn'));
    expect(await page.$eval('#outcome', (e) => (e as HTMLSelectElement).value)).toBe('churned');
  });

  it('leaves the outcome to the person when no column is named like one', async () => {
    await pickFile('plain.csv', 'id,size,red\na,1,yes\nb,2,no\nc,3,yes\n');
    expect(await page.$eval('#outcome', (e) => (e as HTMLSelectElement).value)).toBe('');
    expect(await page.$eval('#outcome option', (e) => e.textContent)).toMatch(/choose/);
  });

  it('names a tab-separated file as such', async () => {
    await page.setInputFiles(
      '#file',
      (fs.writeFileSync(path.join(dir, 'tabs.csv'), 'id\tx\tchurn\na\t1\tyes\nb\t2\tno\n'), path.join(dir, 'tabs.csv')),
    );
    await page.waitForFunction(() => /tab-separated/.test(document.getElementById('record-line')?.textContent ?? ''));
  });

  it('offers every sample, logs marked as asked of the service', async () => {
    const options = await page.$$eval('#sample option', (os) => os.map((o) => (o as HTMLOptionElement).value).filter((v) => v !== ''));
    expect(options.sort()).toEqual(SAMPLES.map((s) => s.name).sort());
    const label = await page.$eval('#sample option[value="customer_events"]', (o) => o.textContent);
    expect(label).toMatch(/asked of the service/);
  });

  it('numbers the sections it shows in order', async () => {
    const numbers = await page.$$eval('h2', (hs) => hs.map((h) => /^(\d+)\./.exec(h.textContent ?? '')?.[1]).filter(Boolean));
    expect(numbers).toEqual(['1', '2', '3', '4']);
  });

  it('shows which value is yes and the chances beside the base rate', async () => {
    await page.selectOption('#sample', 'saas_churn');
    await page.selectOption('#type', 'rank');
    await page.click('#run');
    expect(await waitDone()).toBe('done');
    expect(await page.textContent('#outcome-line')).toMatch(/churned = yes/);
    const bars = await page.$$eval('#chances-chart rect.hist', (rs) => rs.length);
    expect(bars).toBe(20);
    expect(await page.textContent('#chances-chart')).toMatch(/base rate 0\.\d{3}/);
    // chances as p_display (whole percent), the exact p on hover
    const first = page.locator('#cases-table tbody tr').first().locator('td').nth(1);
    expect(await first.textContent()).toMatch(/^(<1%|>99%|\d{1,2}%)$/);
    expect(await first.getAttribute('title')).toMatch(/^p = 0\.\d{6}$/);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'first-hour-answer.png'), fullPage: true });
  });

  it("draws a refused answer's terms grey on one shared scale, and an answered one's each on its own", async () => {
    await page.selectOption('#sample', 'coin_flips');
    await page.selectOption('#type', 'yesno');
    await page.click('#run');
    expect(await waitDone()).toBe('done');
    expect(await page.textContent('#preview-answer')).toMatch(/refused/);
    const chart = page.locator('#terms-chart');
    expect(await chart.getAttribute('class')).toBe('terms refused');
    const scale = Number(await chart.getAttribute('data-scale'));
    expect(scale).toBeGreaterThanOrEqual(0.69);
    // every panel's top tick is the one shared scale, not its own largest term
    const tops = await page.$$eval('#terms-chart svg.panel', (ps) => ps.map((p) => p.querySelector('text.axis')!.textContent));
    expect(tops.length).toBeGreaterThan(1);
    expect(new Set(tops)).toEqual(new Set([`+${scale.toFixed(2)}`]));
    expect(await page.textContent('#terms-chart figcaption')).toMatch(/^Refused: these terms did not hold on the held-out rows/);
    const fill = await page.$eval('#terms-chart svg rect', (r) => getComputedStyle(r).fill);
    expect(fill).toBe('rgb(185, 192, 201)');
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'first-hour-refused.png'), fullPage: true });

    await page.selectOption('#sample', 'saas_churn');
    await page.click('#run');
    expect(await waitDone()).toBe('done');
    expect(await page.locator('#terms-chart').getAttribute('class')).toBe('terms');
    expect(await page.locator('#terms-chart').getAttribute('data-scale')).toBe('own');
    // saas_churn has no blank cell: no column gets an "is missing" bar (a bin no training row fell in is not drawn)
    const titles = await page.$$eval('#terms-chart rect title', (ts) => ts.map((t) => t.textContent ?? ''));
    expect(titles.length).toBeGreaterThan(10);
    expect(titles.filter((t) => t.includes('is missing'))).toEqual([]);
  });

  it('asks the service a log sample with its own ready ask and shows that answer', async () => {
    await page.selectOption('#sample', 'customer_events');
    expect(await page.$eval('#run', (b) => (b as HTMLButtonElement).disabled)).toBe(true);
    expect(await page.$eval('#result', (s) => (s as HTMLElement).hidden)).toBe(true); // no stale answer of another record
    // the page gets its own test key
    await page.click('#get-test-key');
    await page.waitForFunction(() => (document.getElementById('api-key') as HTMLInputElement).value.startsWith('svck_test_'));
    expect(await page.textContent('#service-line')).toMatch(/samples only/);
    await page.click('#ask-service');
    expect(await waitDone()).toBe('done');
    const expected = SAMPLES.find((s) => s.name === 'customer_events')!.expected_state;
    expect(await page.getAttribute('#agreement [data-state]', 'data-state')).toBe(expected);
    await page.screenshot({ path: path.join(ARTIFACTS, 'first-hour-service.png'), fullPage: true });
  });

  it('links the reference, the problems and the keys pages, and each answers', async () => {
    const links = await page.$$eval('header a, body > p a, p.muted a', (as) =>
      as.map((a) => (a as HTMLAnchorElement).getAttribute('href')),
    );
    for (const href of ['/docs', '/problems', '/keys']) {
      expect(links).toContain(href);
      expect((await fetch(svc.url + href)).status, href).toBe(200);
    }
  });
});
