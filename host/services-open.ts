// The Services an operation is handed, made in one place for the request thread (host/main.ts) and for each
// task thread (host/task-thread.ts): the store, signing keys, engine and the lifecycle objects. Nothing here
// listens on a port or starts timers that look for work; main.ts starts those.
import fs from 'node:fs';
import type { Logger } from 'pino';
import { openStore } from './store/index.ts';
import { KeyRing } from './signing/index.ts';
import { loadEngine } from './engine/index.ts';
import type { Services } from './services.ts';
import type { Config } from './config.ts';
import { TaskRunner, type TaskHost } from './operations/tasks.ts';
import { LeaseKeeper } from './operations/leases.ts';
import { RateLimits } from './operations/rate-limits.ts';
import { Admission } from './operations/admission.ts';
import { FitCache } from './operations/ask/fits.ts';
import { RecordCache } from './operations/datasets/read.ts';
import { UsageMeter } from './operations/usage-meter.ts';

export interface OpenOptions {
  log: Logger;
  now: () => number;
  /** Where this process runs tasks: the task threads (request thread) or none (a task thread itself). */
  taskHost: TaskHost;
  /** Cells of sealed datasets kept parsed (datasets/read.ts RecordCache). */
  recordCacheCells: number;
  /** How often the usage meter writes (0: never on its own; a task thread drains it after each task). */
  usageFlushMs: number;
}

export interface OpenServices {
  services: Services;
  /** Ends the lifecycle objects and closes the store (after the caller stopped its own work). */
  close(): Promise<void>;
}

export async function openServices(config: Config, opts: OpenOptions): Promise<OpenServices> {
  const { log, now } = opts;
  fs.mkdirSync(config.dataDir, { recursive: true });
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, poolSize: config.databasePoolSize, now });
  try {
    // Signing keys are made on first start and kept in the store (architecture.md "Runtime pieces").
    const keyRing = await KeyRing.open(store, { now });
    const engine = await loadEngine();
    const usage = new UsageMeter(store, (err) => log.error({ err }, 'writing the usage ledger'), opts.usageFlushMs);
    const services: Services = {
      config,
      store,
      keyRing,
      engine,
      log,
      now,
      usage,
      leases: new LeaseKeeper(config.taskLeaseMs, log),
      tasks: new TaskRunner(opts.taskHost),
      limits: new RateLimits(config, now),
      admission: new Admission(config, store),
      fitCache: new FitCache(),
      records: new RecordCache(opts.recordCacheCells),
    };
    return {
      services,
      async close() {
        await usage.close();
        await store.close();
      },
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}
