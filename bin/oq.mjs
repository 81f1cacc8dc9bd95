#!/usr/bin/env node
// `oq`, the service's command line (docs/guides/command-line.md). Runs the compiled command from dist/ when
// `npm run build` made it, else the TypeScript source through tsx (a checkout, the tests).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = new URL('../dist/host/cli/oq.js', import.meta.url);
if (existsSync(fileURLToPath(built))) {
  const { runOq } = await import(built.href);
  await runOq();
} else {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    console.error('oq: no build in dist/ and no tsx to run the source: run `npm run build` (or `npm ci` with dev dependencies)');
    process.exit(1);
  }
  register();
  const { runOq } = await import(new URL('../host/cli/oq.ts', import.meta.url).href);
  await runOq();
}
