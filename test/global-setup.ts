// vitest global setup: make sure build/engine.wasm is current, so every suite runs the real engine.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

function wasmIsStale(): boolean {
  const wasm = path.join(root, 'build/engine.wasm');
  if (!existsSync(wasm)) return true;
  const built = statSync(wasm).mtimeMs;
  const sources = readdirSync(path.join(root, 'assembly')).map((f) => path.join(root, 'assembly', f));
  return [...sources, path.join(root, 'asconfig.json')].some((f) => statSync(f).mtimeMs > built);
}

export default async function setup(): Promise<void> {
  if (wasmIsStale()) {
    execFileSync('npx', ['asc', '--config', 'asconfig.json', '--target', 'release'], { cwd: root, stdio: 'inherit' });
  }
}
