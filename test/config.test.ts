// configFromEnv (host/config.ts, docs/guides/configuration.md): defaults, every variable read, nonsense refused
// naming the variable; UPLOAD_MAX_BYTES taking effect on a real upload; a bad value stops a real start.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { startService } from '../host/main.ts';
import { ConfigError, configFromEnv, DEFAULT_DRAIN_MS, DEFAULT_MAX_BODY_BYTES } from '../host/config.ts';
import { createLiveKey } from '../host/runtime/keys.ts';
import { tempDir } from './helpers/service.ts';

const root = path.resolve(import.meta.dirname, '..');

describe('configFromEnv', () => {
  it('gives the documented defaults for an empty environment', () => {
    const c = configFromEnv({});
    expect(c).toMatchObject({
      port: 8787,
      baseUrl: 'http://localhost:8787',
      keysUrl: 'http://localhost:8787/keys',
      pendingWaitMs: 2000,
      rateLimitPerMinute: 600,
      registerLimitPerHour: 20,
      verdictTtlMs: 90 * 86_400_000,
      maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
      taskLeaseMs: 15_000,
      maxUploadBytes: 100_000_000,
      fetchTimeoutMs: 30_000,
      databaseUrl: null,
      databasePoolSize: 10,
      logLevel: 'info',
      taskMemoryMb: 2048,
      backgroundNice: 10,
      warmThreads: true,
      taskQueueMax: 64,
      workspaceTasksMax: 4,
      bodyMemoryBytes: 256 * 1024 * 1024,
      sweepEveryMs: 600_000,
      scheduleTickMs: 3_600_000,
      shutdownDrainMs: 0, // SQLite: one node, no balancer to drain from
      uploadPartBytes: 1024 * 1024,
      maxUploadRowBytes: 8_000_000,
      fetchCaPem: null,
      allowLoopbackFetchForTests: false,
      signingKeyReloadMs: 60_000,
      trustProxy: [],
    });
    expect(c.fitWorkers).toBe(Math.max(1, Math.min(os.availableParallelism(), 4)));
    expect(c.dataDir).toBe(path.resolve('./data'));
    // empty values count as unset
    expect(configFromEnv({ UPLOAD_MAX_BYTES: '', FETCH_TIMEOUT_MS: '  ' })).toMatchObject({
      maxUploadBytes: 100_000_000,
      fetchTimeoutMs: 30_000,
    });
  });

  it('drains 8 s on stop with a database (nodes behind a balancer), not at all on SQLite', () => {
    expect(configFromEnv({ DATABASE_URL: 'postgres://app@db.internal:5432/oq' }).shutdownDrainMs).toBe(DEFAULT_DRAIN_MS);
    expect(DEFAULT_DRAIN_MS).toBe(8000);
    expect(configFromEnv({}).shutdownDrainMs).toBe(0);
    expect(configFromEnv({ DATABASE_URL: 'postgres://app@db.internal:5432/oq', SHUTDOWN_DRAIN_MS: '0' }).shutdownDrainMs).toBe(0);
  });

  it('reads every variable', () => {
    const c = configFromEnv({
      PORT: '9000',
      DATA_DIR: '/tmp/oq',
      BASE_URL: 'https://oq.example/',
      KEYS_URL: 'https://oq.example/get-a-key',
      METRICS_TOKEN: ' scrape-token-0123456789 ',
      PENDING_WAIT_MS: '500',
      RATE_LIMIT_PER_MINUTE: '60',
      REGISTER_LIMIT_PER_HOUR: '3',
      VERDICT_TTL_DAYS: '7',
      MAX_BODY_BYTES: '2048',
      TASK_LEASE_MS: '5000',
      UPLOAD_MAX_BYTES: '5000000',
      FETCH_TIMEOUT_MS: '2500',
      DATABASE_URL: 'postgres://app@db.internal:5432/oq',
      LOG_LEVEL: 'warn',
      FIT_WORKERS: '3',
      TASK_MEMORY_MB: '1024',
      WARM_THREADS: '0',
      BACKGROUND_NICE: '5',
      TASK_QUEUE_MAX: '10',
      WORKSPACE_TASKS_MAX: '2',
      BODY_MEMORY_MB: '100',
      SWEEP_EVERY_MS: '60000',
      SCHEDULE_TICK_MS: '120000',
      EVENT_POLL_MS: '250',
      OAUTH_ISSUERS: '[{"issuer": "https://sso.example/realms/a", "audience": "oq", "workspace": "team"}]',
      SIGNING_KEY_RELOAD_MS: '5000',
      TRUST_PROXY: '10.0.0.5, ::1',
      SHUTDOWN_DRAIN_MS: '3000',
    });
    expect(c).toEqual({
      port: 9000,
      dataDir: '/tmp/oq',
      baseUrl: 'https://oq.example',
      keysUrl: 'https://oq.example/get-a-key',
      metricsToken: 'scrape-token-0123456789',
      pendingWaitMs: 500,
      rateLimitPerMinute: 60,
      registerLimitPerHour: 3,
      verdictTtlMs: 7 * 86_400_000,
      maxBodyBytes: 2048,
      taskLeaseMs: 5000,
      maxUploadBytes: 5_000_000,
      fetchTimeoutMs: 2500,
      databaseUrl: 'postgres://app@db.internal:5432/oq',
      databasePoolSize: 10,
      logLevel: 'warn',
      fitWorkers: 3,
      taskMemoryMb: 1024,
      backgroundNice: 5,
      warmThreads: false,
      taskQueueMax: 10,
      workspaceTasksMax: 2,
      bodyMemoryBytes: 100 * 1024 * 1024,
      sweepEveryMs: 60_000,
      scheduleTickMs: 120_000,
      uploadPartBytes: 1024 * 1024,
      maxUploadRowBytes: 8_000_000,
      fetchCaPem: null,
      allowLoopbackFetchForTests: false,
      eventPollMs: 250,
      eventHeartbeatMs: 15_000,
      eventStreamMaxMs: 300_000,
      shutdownDrainMs: 3000,
      oauthIssuers: [
        {
          issuer: 'https://sso.example/realms/a',
          audience: ['oq'],
          workspace: 'team',
          capabilityClaim: ['scope'],
          capabilityValue: 'write:outcomes',
          algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'],
          requireTyp: false,
          clockSkewSeconds: 60,
          jwksTimeoutMs: 5000,
        },
      ],
      signingKeyReloadMs: 5000,
      trustProxy: ['10.0.0.5', '::1'],
    });
  });

  it.each([
    ['DATABASE_URL', 'mysql://x@y/z', /^DATABASE_URL must start with postgres:\/\/ or postgresql:\/\//],
    ['DATABASE_URL', 'not a url', /^DATABASE_URL must be a postgres:\/\/ URL/],
    ['LOG_LEVEL', 'loud', /^LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"$/],
    ['METRICS_TOKEN', 'short', /^METRICS_TOKEN must be 16 to 256 visible ASCII characters/],
    ['METRICS_TOKEN', 'has a space in it, sixteen+', /^METRICS_TOKEN must be 16 to 256 visible ASCII characters/],
    [
      'TRUST_PROXY',
      '10.0.0.0/8',
      /^TRUST_PROXY must list the IP addresses of your load balancers, comma-separated .*got "10\.0\.0\.0\/8"$/,
    ],
    [
      'OAUTH_ISSUERS',
      '[{"issuer": "https://sso.example", "audience": "oq", "workspace": "w", "algorithms": ["HS256"]}]',
      /^OAUTH_ISSUERS\[0\]\.algorithms: "HS256" is not allowed/,
    ],
  ])('refuses %s=%j, naming the variable', (name, value, message) => {
    expect(() => configFromEnv({ [name]: value })).toThrow(ConfigError);
    expect(() => configFromEnv({ [name]: value })).toThrow(message);
  });

  it.each([
    ['UPLOAD_MAX_BYTES', '100MB'],
    ['UPLOAD_MAX_BYTES', '0'],
    ['UPLOAD_MAX_BYTES', '-5'],
    ['UPLOAD_MAX_BYTES', '1e8'],
    ['UPLOAD_MAX_BYTES', '12.5'],
    ['UPLOAD_MAX_BYTES', '99999999999999999999'],
    ['FETCH_TIMEOUT_MS', 'soon'],
    ['FETCH_TIMEOUT_MS', '0'],
    ['FETCH_TIMEOUT_MS', '0x10'],
    ['FETCH_TIMEOUT_MS', '2147483648'], // a Node timer this long would fire at once
    ['PENDING_WAIT_MS', '2147483648'],
    ['TASK_LEASE_MS', '99'],
    ['VERDICT_TTL_DAYS', '100000000'], // expires_at would not be a date
    ['PORT', '70000'],
    ['MAX_BODY_BYTES', '1023'],
    ['FIT_WORKERS', '0'],
    ['SWEEP_EVERY_MS', '10'],
    ['SCHEDULE_TICK_MS', '99'],
    ['SIGNING_KEY_RELOAD_MS', '999'],
    ['SHUTDOWN_DRAIN_MS', '300001'],
    ['SHUTDOWN_DRAIN_MS', 'soon'],
    ['WARM_THREADS', '2'],
    ['BACKGROUND_NICE', '20'],
    ['WARM_THREADS', 'yes'],
  ])('refuses %s=%j, naming the variable and the value', (name, value) => {
    const read = () => configFromEnv({ [name]: value });
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(
      new RegExp(`^${name} must be a whole number from \\d+ to \\d+, got ${JSON.stringify(JSON.stringify(value)).slice(1, -1)}$`),
    );
  });
});

describe('configuration at startup', () => {
  it('UPLOAD_MAX_BYTES from the environment caps a real upload (413 request_too_large)', async () => {
    const dataDir = tempDir();
    const svc = await startService(
      { port: 0, dataDir },
      { hostname: '127.0.0.1', log: pino({ level: 'silent' }), env: { UPLOAD_MAX_BYTES: '1000', FETCH_TIMEOUT_MS: '1234' } },
    );
    try {
      expect(svc.services.config).toMatchObject({ maxUploadBytes: 1000, fetchTimeoutMs: 1234 });
      const { key } = await createLiveKey(svc.services.store, { workspaceName: 'config', now: Date.now() });
      const added = await fetch(`${svc.url}/v1/add-dataset`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ upload: true }),
      }).then((r) => r.json());
      const put = async (bytes: number) => {
        const csv = 'a,b\n' + '1,2\n'.repeat(Math.floor((bytes - 4) / 4));
        const res = await fetch(added.upload_url, { method: 'PUT', headers: { 'content-type': 'text/csv' }, body: csv });
        return { status: res.status, body: await res.json() };
      };
      const big = await put(2000);
      expect(big.status).toBe(413);
      expect(big.body.code).toBe('request_too_large');
      expect(big.body.detail).toContain('1000 bytes');
      expect((await put(800)).status).toBe(200);
    } finally {
      await svc.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a nonsense value stops `host/main.ts` with a one-line configuration error, exit code 1', () => {
    const dataDir = tempDir();
    try {
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'host/main.ts'], {
        cwd: root,
        env: { ...process.env, PORT: '0', DATA_DIR: dataDir, BASE_URL: '', UPLOAD_MAX_BYTES: '100MB' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status).toBe(1);
      expect(r.stderr.trim()).toBe('configuration error: UPLOAD_MAX_BYTES must be a whole number from 1 to 9007199254740991, got "100MB"');
      expect(r.stdout).not.toContain('listening');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
