// Browser entry of the preview page (bundled by host/web/bundle.ts into /preview.js): loads the engine,
// the samples and their CSVs into memory once, then wires the page. Nothing is fetched after load
// except when the person asks the service, so the preview keeps working offline.
import { timeFit } from './core/bench-fit.ts';
import { loadEngineFrom } from './core/engine-load.ts';
import { describeService } from './core/service.ts';
import { PreviewApp, errorText } from './ui/app.ts';
import { byId, el, fill, setOptions } from './ui/dom.ts';
import type { SampleInfo } from './ui/form.ts';

declare global {
  interface Window {
    oqPreview: {
      ready: Promise<PreviewApp>;
      app?: PreviewApp;
      timeFit?: (csv: string, entity: string, outcome: string) => ReturnType<typeof timeFit>;
    };
  }
}

async function loadSamples(): Promise<Map<string, { info: SampleInfo; text: string }>> {
  const out = new Map<string, { info: SampleInfo; text: string }>();
  let samples: SampleInfo[] = [];
  try {
    // Every sample: tables are previewed here; logs (events, series, ...) are asked of the service (section 3).
    samples = (await describeService()).samples ?? [];
  } catch {
    return out; // a page without the service's samples still previews a picked file
  }
  await Promise.all(
    samples.map(async (info) => {
      const res = await fetch(`/samples/${encodeURIComponent(info.name)}.csv`);
      if (res.ok) out.set(info.name, { info, text: await res.text() });
    }),
  );
  return new Map(samples.filter((s) => out.has(s.name)).map((s) => [s.name, out.get(s.name)!]));
}

async function boot(): Promise<PreviewApp> {
  const [engine, samples] = await Promise.all([loadEngineFrom('/engine.wasm'), loadSamples()]);
  const app = new PreviewApp(engine, samples);
  window.oqPreview.app = app;
  // bench/browser.ts times fits here with the same code it times in Node
  window.oqPreview.timeFit = (csv, entity, outcome) => timeFit(engine, csv, entity, outcome);
  fill(
    'engine-line',
    `Engine loaded in this page: core_hash `,
    el('code', { id: 'core-hash' }, engine.coreHash),
    `. ${samples.size} samples held in memory.`,
  );

  const sampleSelect = byId<HTMLSelectElement>('sample');
  const sampleLabel = (n: string) => {
    const shape = samples.get(n)!.info.shape;
    return shape === 'table' ? n : `${n} (${shape} log: asked of the service)`;
  };
  setOptions(sampleSelect, [['', '(choose)'], ...[...samples.keys()].map((n): [string, string] => [n, sampleLabel(n)])], '');
  sampleSelect.addEventListener('change', () => sampleSelect.value && app.selectSample(sampleSelect.value));
  byId<HTMLInputElement>('file').addEventListener('change', async (ev) => {
    const file = (ev.target as HTMLInputElement).files?.[0];
    if (!file) return;
    sampleSelect.value = '';
    try {
      app.useRecord(await file.text(), file.name);
    } catch (err) {
      fill('record-line', el('span', { class: 'error' }, errorText(err)));
    }
  });
  byId<HTMLFormElement>('ask-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    app.run().catch(() => undefined); // shown on the page
  });
  const key = () => byId<HTMLInputElement>('api-key').value.trim();
  byId<HTMLFormElement>('service-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    app.askService(key()).catch(() => undefined);
  });
  byId('export-model').addEventListener('click', () => app.loadServiceModel(key()).catch(() => undefined));
  // A test key from POST /v1/agents/register (no key needed), put in the key field: it works on the samples only.
  byId('get-test-key').addEventListener('click', async () => {
    try {
      const res = await fetch('/v1/agents/register', { method: 'POST' });
      const body = (await res.json()) as { api_key?: string; detail?: string };
      if (!res.ok || !body.api_key) throw new Error(body.detail ?? `HTTP ${res.status}`);
      byId<HTMLInputElement>('api-key').value = body.api_key;
      fill('service-line', 'A test key is in the field: it works on the samples only (live keys come from the operator).');
    } catch (err) {
      fill('service-line', el('span', { class: 'error' }, `No test key: ${errorText(err)}`));
    }
  });
  // Section 4: a model_ref and the key it was given to (blank: the key of section 3).
  byId<HTMLFormElement>('model-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const modelKey = byId<HTMLInputElement>('model-key').value.trim() || key();
    app.loadModelRef(byId<HTMLInputElement>('model-ref').value.trim(), modelKey).catch(() => undefined);
  });
  byId('score-record').addEventListener('click', () => {
    try {
      app.scoreRecord();
    } catch {
      // shown on the page
    }
  });
  byId<HTMLInputElement>('score-file').addEventListener('change', async (ev) => {
    const file = (ev.target as HTMLInputElement).files?.[0];
    if (!file) return;
    try {
      app.scoreFile(await file.text(), file.name);
    } catch {
      // shown on the page
    }
  });
  byId<HTMLDetailsElement>('json-details').addEventListener('toggle', () => {
    const d = byId<HTMLDetailsElement>('json-details');
    if (d.open && app.lastPreview) fill('answer-json', JSON.stringify(app.lastPreview.body, null, 2));
  });
  app.status('ready');
  return app;
}

const ready = boot();
window.oqPreview = { ready };
ready.catch((err) => {
  document.body.dataset.status = 'error';
  fill('engine-line', el('span', { class: 'error' }, `The preview could not start: ${errorText(err)}`));
});
