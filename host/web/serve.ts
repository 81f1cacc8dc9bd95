// Serves the preview page and everything it loads, from this origin only: the HTML and CSS, the
// bundled script, build/engine.wasm (checked against the running engine) and the sample CSVs.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { ServiceError } from '../errors.ts';
import { ENGINE_WASM_PATH } from '../engine/load-node.ts';
import { getSample, loadSampleCsv } from '../../samples/catalog.ts';
import { BUNDLE_PATH } from './bundle-path.ts';
import { RUNNING_BUILT } from '../lib/built.ts';
import { asset as staticAsset, send, type Asset } from './static-asset.ts';

/** The page talks to its own origin only; wasm compilation needs 'wasm-unsafe-eval', nothing inline. */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Every file of the page goes out under the page's policy. */
const asset = (body: string | Uint8Array, type: string): Asset => staticAsset(body, type, PAGE_CSP);

const pageFile = (name: string) => fileURLToPath(new URL(`./page/${name}`, import.meta.url));

/** One value per process, made on first use; a failed attempt is forgotten so the next request retries. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | null = null;
  return () => (p ??= make().catch((err) => ((p = null), Promise.reject(err))));
}

/**
 * Built (dist/), the file `npm run build` wrote, never bundled here; from source (tests, tsx), bundled with
 * esbuild so it is always current.
 */
async function loadBundle(): Promise<Asset> {
  let js: string;
  if (!RUNNING_BUILT) {
    const { buildPreviewBundle } = await import('./bundle.ts');
    js = await buildPreviewBundle();
  } else {
    try {
      js = readFileSync(BUNDLE_PATH, 'utf8');
    } catch {
      throw new ServiceError('preview_not_built', `the preview script is not built: run npm run build (writes ${BUNDLE_PATH})`);
    }
  }
  return asset(js, 'text/javascript; charset=utf-8');
}

export function mountPreviewPage(app: Hono<AppEnv>): void {
  const html = once(async () => asset(readFileSync(pageFile('index.html')), 'text/html; charset=utf-8'));
  const css = once(async () => asset(readFileSync(pageFile('preview.css')), 'text/css; charset=utf-8'));
  const bundle = once(loadBundle);
  const wasm = once(async () => {
    const bytes = readFileSync(ENGINE_WASM_PATH);
    return { ...asset(bytes, 'application/wasm'), coreHash: createHash('sha256').update(bytes).digest('hex') };
  });
  const samples = new Map<string, Asset>();

  app.get('/', async (c) => send(c, await html()));
  // docs/reference/tasks.md#watch, docs/reference/datasets.md#uploads: the watch and upload pages ({site_url} is this service); the token stays in the path,
  // read by the page's script, and every check is the API's.
  const page = (name: string, type: string) => once(async () => asset(readFileSync(pageFile(name)), type));
  const watchHtml = page('watch.html', 'text/html; charset=utf-8');
  const uploadHtml = page('upload.html', 'text/html; charset=utf-8');
  const watchJs = page('watch.js', 'text/javascript; charset=utf-8');
  const uploadJs = page('upload.js', 'text/javascript; charset=utf-8');
  app.get('/watch/:token', async (c) => send(c, await watchHtml()));
  app.get('/upload/:token', async (c) => send(c, await uploadHtml()));
  app.get('/watch.js', async (c) => send(c, await watchJs()));
  app.get('/upload.js', async (c) => send(c, await uploadJs()));
  app.get('/preview.css', async (c) => send(c, await css()));
  app.get('/preview.js', async (c) => send(c, await bundle()));
  app.get('/engine.wasm', async (c) => {
    const a = await wasm();
    // The page must run the engine this server runs (same core_hash), or its answers would not match.
    if (a.coreHash !== c.get('services').engine.coreHash) {
      throw new ServiceError('engine_changed', 'build/engine.wasm changed since this server started; restart the server');
    }
    return send(c, a);
  });
  app.get('/samples/:file', async (c) => {
    const file = c.req.param('file');
    const name = file.endsWith('.csv') ? file.slice(0, -4) : '';
    if (!getSample(name)) throw new ServiceError('not_found', `There is no sample file ${file}; POST /v1/describe lists the samples.`);
    if (!samples.has(name)) samples.set(name, asset(loadSampleCsv(name), 'text/csv; charset=utf-8'));
    return send(c, samples.get(name)!);
  });
}
