// vitest setup: real parts only (compiled wasm, SQLite files, loopback HTTP); see docs/design/house-rules.md.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two test files at a time. Vitest's default on 2 cores is one, but a file mostly waits on what it starts
    // (services, child processes, PostgreSQL, HAProxy, Chromium): alone, the suite left a core idle and took
    // over 20 minutes of CI.
    maxWorkers: 2,
    globalSetup: ['test/global-setup.ts'],
  },
});
