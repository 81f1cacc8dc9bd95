// The retention sweeper (docs/reference/datasets.md#lifecycle, docs/reference/limits.md#limits: stored datasets, poll results (tasks) and idempotency records go 24 hours
// after last use): calls store.sweep on a timer, once per period across all the nodes sharing the store, and
// clears upload files a crashed process left behind on this node's own disk.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Services } from './services.ts';
import { OWNER } from './leases.ts';
import { UPLOAD_TTL_SECONDS } from '../signing/upload-token.ts';
import { UPLOAD_DIR, isOrphanUpload } from './upload-files.ts';

/** The periodic job's name in the store (cluster_jobs). */
export const SWEEP_JOB = 'retention-sweep';

/** One pass: store.sweep(now) and stale upload files. Exported for tests and for an operator's one-off run. */
export async function sweepOnce(services: Services): Promise<void> {
  await sweepStore(services);
  await sweepLocalFiles(services);
}

async function sweepStore(services: Services): Promise<void> {
  const result = await services.store.sweep(services.now());
  // Swept datasets' parsed rows go from memory as well (docs/reference/datasets.md#lifecycle: deleted, not just unreachable). Another
  // node's cache forgets them when it next reads the dataset from the store and finds it gone.
  for (const id of result.datasets) services.records.forget(id);
  services.log.info({ ...result, datasets: result.datasets.length }, 'retention sweep');
}

function sweepLocalFiles(services: Services): Promise<void> {
  // File ages are wall-clock (mtime), not the injected clock.
  return removeStaleUploads(path.join(services.config.dataDir, UPLOAD_DIR), Date.now());
}

/**
 * A timer's pass: this node's leftover files always; the store only when this node is the first of the
 * cluster to claim this period's run (one conditional upsert in the store, on the database's clock), so
 * N nodes sweep once per period between them, not N times.
 */
export async function sweepIfDue(services: Services, periodMs: number): Promise<boolean> {
  await sweepLocalFiles(services);
  // A little short of the period, so a node whose timer fires a hair early against the last run (timers
  // and clock corrections jitter by milliseconds) does not skip a whole period.
  const spacing = periodMs - Math.min(periodMs / 10, 1000);
  if (!(await services.store.claimJob(SWEEP_JOB, services.now(), spacing, OWNER))) return false;
  await sweepStore(services);
  return true;
}

/**
 * Leftover upload files: those of a process of this host that is gone (killed mid-upload) at once; any
 * other older than twice its URL's lifetime (an upload in progress is younger than that).
 */
export async function removeStaleUploads(dir: string, now: number): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const file = path.join(dir, name);
    if (isOrphanUpload(name)) {
      await fs.rm(file, { force: true });
      continue;
    }
    const stat = await fs.stat(file).catch(() => null);
    if (stat && now - stat.mtimeMs > 2 * UPLOAD_TTL_SECONDS * 1000) await fs.rm(file, { force: true });
  }
}

/** Sweeps every `intervalMs` (the timer never keeps the process alive); returns a stop function. */
export function startSweeper(services: Services, intervalMs: number): () => void {
  let running = false;
  // At start, the upload files of processes killed mid-upload go at once.
  void removeStaleUploads(path.join(services.config.dataDir, UPLOAD_DIR), Date.now()).catch((err: unknown) =>
    services.log.warn({ err }, 'clearing upload files'),
  );
  const timer = setInterval(() => {
    if (running) return; // a slow sweep is never overlapped by the next
    running = true;
    sweepIfDue(services, intervalMs)
      .catch((err: unknown) => services.log.error({ err }, 'sweep failed'))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
