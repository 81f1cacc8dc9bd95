// Builds what is stale, and only that: build/engine.wasm from assembly/ (asc) and the preview page's script
// from host/ (esbuild). `npm start` runs it, so a restart with nothing changed starts at once;
// `--force` rebuilds both (`npm run build`). The test setup uses the same staleness check.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
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

/** Builds what is stale (everything with `force`); returns what it built. */
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

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const built = await buildStale(process.argv.includes('--force'));
  if (built.length === 0) console.log('build: engine and page are current');
}
