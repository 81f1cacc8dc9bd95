// `npm start` on a port another program holds: one line that names PORT and exit code 1, no stack trace.
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/service.ts';

const root = path.resolve(import.meta.dirname, '../..');

describe('a busy port', () => {
  it('says to set PORT and exits 1', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', 'host/main.ts'], {
        cwd: root,
        env: {
          ...process.env,
          PORT: String(port),
          DATA_DIR: tempDir(),
          LOG_LEVEL: 'warn',
          BASE_URL: '',
          DATABASE_URL: '',
          WARM_THREADS: '0',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(1);
      const lines = stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`port ${port} is already in use`);
      expect(lines[0]).toContain('set PORT');
      expect(stderr).not.toMatch(/EADDRINUSE|\n\s+at /);
    } finally {
      holder.close();
    }
  }, 60_000);
});
