// Background threads (fit workers, task threads) run at a lower CPU priority than the request thread, so a
// cached ask is not left waiting for a core behind cold fits (docs/guides/overload.md#priority). On Linux the
// nice value belongs to the thread, and os.setPriority(0, …) sets the calling thread's alone; elsewhere it
// may set the whole process's, so it is only done on Linux. Answers do not depend on it: it moves when a
// thread runs, never what it computes.
import os from 'node:os';

/** How much nicer than the request thread a background thread runs (0 is the same, 19 the nicest). */
export const BACKGROUND_NICE_STEP = 10;

/**
 * Lower the calling thread's priority by `step` (capped at nice 19). A thread cannot raise it again without
 * privileges, so only call it on a thread that does background work for the rest of its life. Returns the
 * nice value the thread now has, or null where it was left alone (not Linux, or the system refused).
 */
export function lowerThreadPriority(step: number = BACKGROUND_NICE_STEP): number | null {
  if (process.platform !== 'linux' || step <= 0) return null;
  try {
    const now = os.getPriority(0);
    const nicer = Math.min(19, now + step);
    if (nicer !== now) os.setPriority(0, nicer);
    return nicer;
  } catch {
    return null;
  }
}
