// The SQLite store's WAL checkpoints, run on a thread of their own (docs/decisions/0091-sqlite-checkpoints-off-the-request-thread.md).
// By default the connection whose COMMIT takes the WAL past 1,000 pages copies the WAL into the database file
// and syncs it before its COMMIT returns; on the request thread that stalls every reply behind it. The
// request thread's connection turns that off (wal_autocheckpoint = 0) and this thread checkpoints instead:
// PASSIVE, so it never waits for a reader or holds up a writer, every CHECKPOINT_EVERY_MS. Once a checkpoint
// has copied every frame, the next writer starts the WAL again from its beginning, and journal_size_limit
// (set on every connection, sqlite.ts) cuts the file back, so the WAL stays bounded on disk.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the checkpoint thread copies the WAL into the database file. */
export const CHECKPOINT_EVERY_MS = 500;

/** What one PASSIVE checkpoint reports: frames in the WAL, and of those, frames now in the database file. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

export interface Checkpointer {
  /** The latest checkpoint's result (null before the first). */
  readonly last: CheckpointResult | null;
  /** Checkpoints run so far. */
  readonly runs: number;
  stop(): Promise<void>;
}

// Plain CommonJS, evaluated as the thread's program: it needs nothing of the service but better-sqlite3.
const PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { timeout: workerData.busyTimeoutMs });
db.pragma('wal_autocheckpoint = 0');
const timer = setInterval(() => {
  try {
    const r = db.pragma('wal_checkpoint(PASSIVE)')[0];
    parentPort.postMessage({ busy: r.busy, log: r.log, checkpointed: r.checkpointed });
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message || err) });
  }
}, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/** Starts checkpointing the WAL of the database `file` on a thread of its own. */
export function startCheckpointer(
  file: string,
  opts: { everyMs?: number; busyTimeoutMs: number; onError: (message: string) => void },
): Checkpointer {
  const worker = new Worker(PROGRAM, {
    eval: true,
    workerData: {
      module: createRequire(import.meta.url).resolve('better-sqlite3'),
      file,
      everyMs: opts.everyMs ?? CHECKPOINT_EVERY_MS,
      busyTimeoutMs: opts.busyTimeoutMs,
    },
  });
  // The thread never keeps the process alive on its own: the store's close() stops it.
  worker.unref();
  const state = { last: null as CheckpointResult | null, runs: 0 };
  worker.on('message', (m: CheckpointResult | { error: string }) => {
    if ('error' in m) return opts.onError(m.error);
    state.last = m;
    state.runs++;
  });
  worker.on('error', (err) => opts.onError(err.message));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    get last() {
      return state.last;
    },
    get runs() {
      return state.runs;
    },
    async stop() {
      worker.postMessage('stop');
      await exited;
    },
  };
}
