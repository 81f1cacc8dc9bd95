// The retention sweeper (spec 2.2, 8: stored datasets, poll results (tasks) and idempotency records go 24 hours
// after last use): calls store.sweep on a timer, and clears upload files a crashed process left behind.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Services } from '../../services.ts';
import { UPLOAD_TTL_SECONDS } from './upload-token.ts';
import { UPLOAD_DIR, isOrphanUpload } from './upload.ts';

/** One pass: store.sweep(now) and stale upload files. Exported for tests and for an operator's one-off run. */
export async function sweepOnce(services: Services): Promise<void> {
  const now = services.now();
  const result = await services.store.sweep(now);
  // Swept datasets' parsed rows go from memory as well (spec 2.2: deleted, not just unreachable).
  for (const id of result.datasets) services.records.forget(id);
  if (result.datasets.length + result.tasks + result.idempotency > 0) {
    services.log.info({ ...result, datasets: result.datasets.length }, 'swept expired records');
  }
  // File ages are wall-clock (mtime), not the injected clock.
  await removeStaleUploads(path.join(services.config.dataDir, UPLOAD_DIR), Date.now());
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
  // At start, the upload files of processes killed mid-upload go at once (issue 21).
  void removeStaleUploads(path.join(services.config.dataDir, UPLOAD_DIR), Date.now()).catch((err: unknown) =>
    services.log.warn({ err }, 'clearing upload files'),
  );
  const timer = setInterval(() => {
    if (running) return; // a slow sweep is never overlapped by the next
    running = true;
    sweepOnce(services)
      .catch((err: unknown) => services.log.error({ err }, 'sweep failed'))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
