// The Services an operation is handed, made in one place for the request thread (host/main.ts) and for each
// task thread (host/runtime/task-thread.ts): the store, signing keys, engine and the lifecycle objects. Nothing here
// listens on a port or starts timers that look for work; main.ts starts those.
import fs from 'node:fs';
import type { Logger } from 'pino';
import { openStore } from '../store/index.ts';
import { KeyRing } from '../signing/index.ts';
import { loadEngine, type FitRunner } from '../engine/index.ts';
import type { Services } from './services.ts';
import type { Config } from '../config.ts';
import { TaskRunner, type TaskHost } from './tasks.ts';
import { LeaseKeeper } from './leases.ts';
import { RateLimits } from './rate-limits.ts';
import { Admission } from './admission.ts';
import { FitCache } from './fit-cache.ts';
import { RecordCache } from './record-cache.ts';
import { UsageMeter } from './usage-meter.ts';
import { AnswerKeeper } from './answer-keeper.ts';
import { TaskEventHub } from './events/hub.ts';
import { StoredAnswerCache } from './stored-answers.ts';
import { DatabaseClock } from './clock.ts';
import { loadTokenSecrets } from '../signing/hmac-token.ts';
import { ServiceMetrics } from './metrics.ts';
import { Drain } from './drain.ts';

export interface OpenOptions {
  log: Logger;
  /**
   * The service's clock. Absent: the request thread's own, which on PostgreSQL follows the database
   * server's (clock.ts), so leases written on one node are judged on the same clock by another.
   */
  now?: () => number;
  /** Where fits run: the process's fit pool, or (a task thread) the request thread's pool through messages. */
  pool: FitRunner;
  /** Where this process runs tasks: the task threads (request thread) or none (a task thread itself). */
  taskHost: TaskHost;
  /** Cells of sealed datasets kept parsed (runtime/record-cache.ts). */
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
  const { log } = opts;
  fs.mkdirSync(config.dataDir, { recursive: true });
  const metrics = new ServiceMetrics();
  // Every store call timed and its failures counted, from the first (GET /metrics).
  const store = metrics.instrumentStore(
    await openStore({
      dataDir: config.dataDir,
      databaseUrl: config.databaseUrl,
      poolSize: config.databasePoolSize,
      now: opts.now,
    }),
  );
  let clock: DatabaseClock | undefined;
  let keyRing: KeyRing | undefined;
  try {
    // Nodes sharing a PostgreSQL store keep time by its clock; an injected clock is left as it is.
    clock = opts.now ? undefined : await DatabaseClock.start(store, log);
    const now = opts.now ?? clock!.now;
    // Signing keys are made on first start and kept in the store (docs/design/architecture.md#runtime), and
    // read again now and then, so a key rotated on another node is signed with here too.
    keyRing = await KeyRing.open(store, { now });
    keyRing.startRefresh(config.signingKeyReloadMs, (err) => log.warn({ err }, 'reloading the signing keys'));
    const secrets = await loadTokenSecrets(store, config.dataDir, now());
    const engine = await loadEngine();
    const usage = new UsageMeter(store, (err) => log.error({ err }, 'writing the usage ledger'), opts.usageFlushMs);
    const keptAnswers = new AnswerKeeper(store, (err) => log.error({ err }, 'keeping answers for the track record'));
    // The service's lifecycle objects: made here, closed in close() below, never module globals.
    const services: Services = {
      config,
      store,
      keyRing,
      engine,
      pool: opts.pool,
      log,
      now,
      secrets,
      usage,
      keptAnswers,
      leases: new LeaseKeeper(config.taskLeaseMs, log, (renewing) => metrics.renewal(renewing)),
      tasks: new TaskRunner(opts.taskHost),
      limits: new RateLimits(config, now, store),
      admission: new Admission(config, store),
      events: new TaskEventHub(now),
      fitCache: new FitCache(),
      records: new RecordCache(opts.recordCacheCells),
      storedAnswers: new StoredAnswerCache(),
      metrics,
      drain: new Drain(),
    };
    metrics.watch({
      tasksRunning: () => services.tasks.running,
      eventClients: () => services.events.openStreams,
      tasksQueued: () => store.countQueuedTasks(),
    });
    const ring = keyRing;
    return {
      services,
      async close() {
        await usage.close();
        await keptAnswers.close();
        ring.stopRefresh();
        clock?.stop();
        await store.close();
      },
    };
  } catch (err) {
    keyRing?.stopRefresh();
    clock?.stop();
    await store.close();
    throw err;
  }
}
