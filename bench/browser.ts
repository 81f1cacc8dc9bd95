// In-browser fit time beside Node: Telco churn (test/fixtures/real/telco_churn.csv, entity customer_id,
// outcome churn) fitted by the preview page in headless Chromium and by the same code in Node
// (host/web/core/bench-fit.ts); one warm-up each, then the median of 3 with the two sides alternating. Run: npx tsx bench/browser.ts
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { pino } from 'pino';
import { startService } from '../host/main.ts';
import { loadEngine } from '../host/engine/index.ts';
import { timeFit, type TimedFit } from '../host/web/core/bench-fit.ts';

const CSV_PATH = fileURLToPath(new URL('../test/fixtures/real/telco_churn.csv', import.meta.url));
const ENTITY = 'customer_id';
const OUTCOME = 'churn';
const RUNS = Number(process.env.BENCH_BROWSER_RUNS) || 3;
const CHROMIUM = '/usr/bin/chromium';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

interface Side {
  label: string;
  fit: () => Promise<TimedFit>;
  warm?: TimedFit;
  runs: TimedFit[];
}

/** Warm both sides up, then alternate their runs, so a busy machine slows both alike. */
async function measure(sides: Side[]): Promise<void> {
  for (const s of sides) s.warm = await s.fit();
  for (let i = 0; i < RUNS; i++) for (const s of sides) s.runs.push(await s.fit());
}

const med = (s: Side, k: keyof TimedFit) => median(s.runs.map((r) => r[k] as number));

async function main(): Promise<void> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium is not installed at ${CHROMIUM}: apt-get install -y chromium`);
  const csv = fs.readFileSync(CSV_PATH, 'utf8');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'oq-bench-browser-'));
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'oq-bench-chromium-'));
  const svc = await startService({ port: 0, dataDir }, { hostname: '127.0.0.1', log: pino({ level: 'silent' }) });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
  try {
    const page = await context.newPage();
    await page.goto(svc.url + '/');
    await page.waitForFunction(() => document.body.dataset.status === 'ready', null, { timeout: 60_000 });
    const engine = await loadEngine();
    const browser: Side = {
      label: 'Chromium (preview page, main thread)',
      fit: () => page.evaluate(([text, e, o]) => window.oqPreview.timeFit!(text, e, o), [csv, ENTITY, OUTCOME] as const),
      runs: [],
    };
    const node: Side = { label: 'Node (same code, in-process)', fit: async () => timeFit(engine, csv, ENTITY, OUTCOME), runs: [] };
    await measure([browser, node]);
    const version = (await context.browser()?.version()) ?? (await page.evaluate(() => navigator.userAgent));

    const rows = csv.trimEnd().split('\n').length - 1;
    console.log(
      `Telco churn, ${rows} rows, entity ${ENTITY}, outcome ${OUTCOME}; ${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, Node ${process.version}, Chromium ${version}`,
    );
    console.log(
      `one warm-up each, then median of ${RUNS} (browser and Node runs alternate); whole = parse CSV + hash + outcome + encode + engine fit; engine fit = fresh instance + fit + interpret\n`,
    );
    console.log(
      '| where | whole, median (runs) | engine fit, median (runs) | parse+hash+outcome | encode | warm-up whole | state, AUC, model_ref |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const m of [browser, node]) {
      const runs = (k: keyof TimedFit) => m.runs.map((r) => (r[k] as number).toFixed(0)).join(', ');
      const w = m.warm!;
      console.log(
        `| ${m.label} | ${med(m, 'totalMs').toFixed(0)} ms (${runs('totalMs')}) | ${med(m, 'fitMs').toFixed(0)} ms (${runs('fitMs')}) | ${med(m, 'parseMs').toFixed(0)} ms | ${med(m, 'encodeMs').toFixed(0)} ms | ${w.totalMs.toFixed(0)} ms | ${w.state}, ${w.auc}, ${w.modelRef} |`,
      );
    }
    console.log(
      `\nbrowser / node: whole ${(med(browser, 'totalMs') / med(node, 'totalMs')).toFixed(2)}, engine fit ${(med(browser, 'fitMs') / med(node, 'fitMs')).toFixed(2)}`,
    );
    const same = [...browser.runs, browser.warm!].every((r) => r.modelRef === node.warm!.modelRef && r.auc === node.warm!.auc);
    console.log(`same model_ref and AUC in the browser and in Node on every run: ${same}`);
    if (!same) process.exitCode = 1;
  } finally {
    await context.close();
    await svc.close();
    fs.rmSync(profile, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
