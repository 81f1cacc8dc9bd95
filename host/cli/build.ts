// `npm run build`: everything the service runs, built once into dist/, so that production starts with plain
// `node dist/main.js` (no TypeScript loader, no compiler, no bundler at start or on a request):
//
//   build/engine.wasm, build/web/preview.js   the engine (asc) and the page's script (esbuild); the tests
//                                             run the source against these two
//   dist/host/**.js, dist/samples/catalog.js  host/ compiled by tsc (tsconfig.build.json), file for file
//   dist/build/, dist/docs/, dist/samples/*.csv, dist/host/web/page/, dist/host/store/migrations/
//                                             the files the code reads beside itself, copied, so every
//                                             path the code makes from import.meta.url holds in dist/ too
//   dist/main.js, dist/cli/keys.js            the entries (`node dist/main.js`, `node dist/cli/keys.js`)
//
// tsc rather than esbuild for host/: it keeps one output file per source file, so the relative paths above
// and the worker-thread entries need no special case, and a stack trace names the file and line of the source.
// The engine and the page are rebuilt when their sources changed (`--force`: always); dist/ always.
// `--stale` builds only the engine and the page, and only what changed (the test setup and the benchmarks).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const at = (p: string) => path.join(root, p);

/** Newest modification time of the files under `dir` whose names match `pattern`. */
function newest(dir: string, pattern: RegExp): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(full, pattern));
    else if (pattern.test(e.name)) t = Math.max(t, statSync(full).mtimeMs);
  }
  return t;
}

function olderThan(output: string, sources: number): boolean {
  return !existsSync(at(output)) || statSync(at(output)).mtimeMs < sources;
}

export function wasmIsStale(): boolean {
  return olderThan('build/engine.wasm', Math.max(newest(at('assembly'), /\.ts$/), statSync(at('asconfig.json')).mtimeMs));
}

export function pageIsStale(): boolean {
  return olderThan('build/web/preview.js', newest(at('host'), /\.(ts|html|css)$/));
}

export function buildWasm(): void {
  execFileSync(process.execPath, [at('node_modules/assemblyscript/bin/asc.js'), '--config', 'asconfig.json', '--target', 'release'], {
    cwd: root,
    stdio: 'inherit',
  });
}

async function buildPage(): Promise<void> {
  const { writePreviewBundle } = await import('../web/bundle.ts');
  await writePreviewBundle();
}

/** Builds the engine and the page when stale (both with `force`); returns what it built. */
export async function buildStale(force = false): Promise<string[]> {
  const built: string[] = [];
  if (force || wasmIsStale()) {
    buildWasm();
    built.push('build/engine.wasm');
  }
  if (force || pageIsStale()) {
    await buildPage();
    built.push('build/web/preview.js');
  }
  return built;
}

/** A two-line entry that runs `fn` of a compiled module (the modules themselves only export). */
function entry(file: string, module: string, fn: string): void {
  const full = at(path.join('dist', file));
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(
    full,
    `#!/usr/bin/env node\n// Written by npm run build (host/cli/build.ts).\nimport { ${fn} } from '${module}';\nawait ${fn}();\n`,
    { mode: 0o755 },
  );
}

/** dist/: host/ compiled, the files it reads beside itself, and the entries. */
export function buildDist(): void {
  rmSync(at('dist'), { recursive: true, force: true });
  execFileSync(process.execPath, [at('node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  const copy = (from: string, to = from, filter?: (name: string) => boolean) =>
    cpSync(at(from), at(path.join('dist', to)), {
      recursive: true,
      filter: filter && ((src) => statSync(src).isDirectory() || filter(src)),
    });
  copy('build/engine.wasm');
  copy('build/web/preview.js');
  copy('docs');
  copy('samples', 'samples', (name) => name.endsWith('.csv'));
  copy('host/web/page');
  copy('host/store/migrations');
  entry('main.js', './host/main.js', 'runMain');
  entry('cli/keys.js', '../host/cli/keys.js', 'runKeys');
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  if (process.argv.includes('--stale')) {
    const built = await buildStale();
    if (built.length === 0) console.log('build: engine and page are current');
  } else {
    await buildStale(process.argv.includes('--force'));
    buildDist();
    console.log('build: wrote dist/ (start it with node dist/main.js)');
  }
}
