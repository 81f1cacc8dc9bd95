// Test helpers: a real SQLite store in a fresh temp directory, closed and removed after each test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { openSqliteStore, type Store } from '../../host/store/index.ts';

const opened: Store[] = [];
const dirs: string[] = [];

export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-test-'));
  dirs.push(dir);
  return dir;
}

/** Opens a store; pass dir to reopen an existing one. */
export async function openStore(dir: string = tempDir()): Promise<Store> {
  const store = await openSqliteStore(dir);
  opened.push(store);
  return store;
}

afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

export const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);
export const HOUR = 60 * 60 * 1000;
export const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');
