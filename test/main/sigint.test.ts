// A test run stopped with Ctrl-C leaves no PostgreSQL server or folder behind: a vitest run whose global setup
// started the server is sent SIGINT while a test waits, and afterwards nothing listens on the server's port
// and no pg-test- folder of it is left.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { postgresMissing } from '../helpers/postgres.ts';

const root = path.resolve(import.meta.dirname, '../..');
const pgDirs = () => new Set(fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('pg-test-')));

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1' });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

describe('Ctrl-C during a test run', () => {
  it.skipIf(postgresMissing() !== null)(
    'stops the PostgreSQL server and removes its folder',
    async () => {
      const before = pgDirs();
      const child = spawn(
        process.execPath,
        [path.join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'test/fixtures/sigint/vitest.config.ts'],
        { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const port = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no server port in time:\n${out}`)), 110_000);
        const poll = setInterval(() => {
          const m = /POSTGRES_PORT=(\d+)/.exec(out);
          if (m) (clearInterval(poll), clearTimeout(timer), resolve(Number(m[1])));
        }, 100);
      });
      // this run's folder: new since the start and holding the server's socket (other runs may make their own)
      const ours = [...pgDirs()].filter((d) => !before.has(d) && fs.existsSync(path.join(os.tmpdir(), d, `.s.PGSQL.${port}`)));
      expect(ours.length).toBeGreaterThan(0);
      expect(await listening(port)).toBe(true);

      child.kill('SIGINT');
      await exited;
      expect(await listening(port)).toBe(false);
      for (const d of ours) expect(fs.existsSync(path.join(os.tmpdir(), d)), d).toBe(false);
    },
    150_000,
  );
});
