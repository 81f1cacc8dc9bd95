// Admission control: what this process takes on at once, so its memory stays under a bound
// whatever the load. Two budgets: bytes of request bodies being read and worked on (a 503 past it), and
// tasks, counted in the store so every node sharing it counts the same: a workspace's queued and running
// tasks (429 workspace_busy past WORKSPACE_TASKS_MAX) and tasks of all workspaces waiting for a thread
// (503 server_busy past TASK_QUEUE_MAX). Work that waits is a pending task in the store, never a request
// held in memory; the TaskRunner starts it when a thread is free (host/runtime/tasks.ts).
import { performance } from 'node:perf_hooks';
import { ServiceError } from '../errors.ts';
import type { Config } from '../config.ts';
import type { TaskCounts } from '../store/index.ts';

/** The store's side of admission (TaskStore.countUnfinishedTasks): any store shared by many nodes counts cluster-wide. */
export interface TaskCounter {
  countUnfinishedTasks(workspace_id: string): Promise<TaskCounts>;
}

/** How long a refused caller is asked to wait: about the time a thread takes to free up under load. */
export const BUSY_RETRY_AFTER_MS = 2_000;

/** Body bytes held for one request until `release()`; `grow` adds bytes as they arrive (throws past the budget). */
export interface BodyReservation {
  grow(bytes: number): void;
  release(): void;
}

export type AdmissionConfig = Pick<Config, 'taskQueueMax' | 'workspaceTasksMax' | 'bodyMemoryBytes'>;

/** A body past this many bytes is refused while the request thread is saturated (below). */
export const LARGE_BODY_BYTES = 1024 * 1024;
/** The request thread counts as saturated when its event loop was busy this share of the last half second... */
const SATURATED = 0.95;
/** ... and at least this many other bodies are being read or worked on. */
const SATURATED_BODIES = 4;
/** How often the event loop's busy share is sampled (each sample covers the interval since the last). */
const SAMPLE_MS = 250;

/**
 * How busy this thread's event loop was over about the last half second (0-1): two samples of
 * performance.eventLoopUtilization 250 ms apart, taken by an unref'd timer that starts on the first
 * question (a thread that never gets a large body never samples).
 */
export class LoopLoad {
  private timer: NodeJS.Timeout | undefined;
  private last = performance.eventLoopUtilization();
  private recent: number[] = [0, 0];

  utilization(): number {
    if (!this.timer) {
      this.timer = setInterval(() => {
        const current = performance.eventLoopUtilization();
        this.recent = [this.recent[1], performance.eventLoopUtilization(current, this.last).utilization];
        this.last = current;
      }, SAMPLE_MS);
      this.timer.unref();
    }
    return (this.recent[0] + this.recent[1]) / 2;
  }
}

export class Admission {
  private bodyBytes = 0;
  private bodies = 0;
  /** Admissions of this process run one at a time, so two never both see the last free place. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly config: AdmissionConfig,
    private readonly counter: TaskCounter,
    private readonly loop: { utilization(): number } = new LoopLoad(),
  ) {}

  /** Bytes of request bodies held now (for tests and logs). */
  get heldBodyBytes(): number {
    return this.bodyBytes;
  }

  /**
   * Holds body memory for one request. Past BODY_MEMORY_MB the request is refused with 503 server_busy
   * before more of it is read; a body alone always fits (the body size limit bounds it).
   */
  reserveBody(): BodyReservation {
    let mine = 0;
    let released = false;
    this.bodies++;
    return {
      grow: (bytes: number) => {
        if (released || bytes <= 0) return;
        // A large body arriving while the request thread has no time left would wait behind the others
        // for seconds (parsing and checking 3 MB of JSON takes tens of milliseconds): refused at once, so
        // the caller retries later and the small calls beside it keep their latency.
        if (
          mine + bytes > LARGE_BODY_BYTES &&
          mine <= LARGE_BODY_BYTES &&
          this.bodies - 1 >= SATURATED_BODIES &&
          this.loop.utilization() >= SATURATED
        ) {
          throw busy(
            'server_busy',
            `this server's request thread is saturated (reading and checking ${this.bodies - 1} other request bodies); a body over ${mib(LARGE_BODY_BYTES)} MiB waits for it to catch up`,
            { connection: 'close' },
          );
        }
        if (this.bodyBytes + bytes > this.config.bodyMemoryBytes && this.bodyBytes - mine > 0) {
          throw busy(
            'server_busy',
            `this server is reading ${this.bodies - 1} other request bodies (${mib(this.bodyBytes - mine)} MiB) and takes at most ${mib(this.config.bodyMemoryBytes)} MiB at once`,
            { connection: 'close' },
          );
        }
        mine += bytes;
        this.bodyBytes += bytes;
      },
      release: () => {
        if (released) return;
        released = true;
        this.bodyBytes -= mine;
        this.bodies--;
      },
    };
  }

  /**
   * Runs `create` (which stores the task) only when one more task of `workspaceId` stays within the
   * bounds: 429 workspace_busy past the workspace's share, 503 server_busy when the task would wait and
   * the queue is full (`startsNow`: a thread of this process takes it at once, so it never waits).
   */
  admitTask<T>(workspaceId: string, startsNow: boolean, create: () => Promise<T>): Promise<T> {
    const turn = this.tail.then(async () => {
      const counts = await this.counter.countUnfinishedTasks(workspaceId);
      const share = this.config.workspaceTasksMax;
      if (counts.workspace >= share) {
        throw busy(
          'workspace_busy',
          `this workspace has ${counts.workspace} asks fitting or waiting to fit, and may have at most ${share} at once`,
        );
      }
      if (!startsNow && counts.pending >= this.config.taskQueueMax) {
        throw busy(
          'server_busy',
          `every fit thread is busy and ${counts.pending} asks are already waiting (at most ${this.config.taskQueueMax})`,
        );
      }
      return create();
    });
    this.tail = turn.catch(() => undefined);
    return turn;
  }
}

function mib(bytes: number): number {
  return Math.round(bytes / (1024 * 1024));
}

function busy(code: 'server_busy' | 'workspace_busy', detail: string, headers: Record<string, string> = {}): ServiceError {
  return new ServiceError(code, detail, {
    extra: { retry_after_ms: BUSY_RETRY_AFTER_MS },
    headers: { ...headers, 'Retry-After': String(Math.ceil(BUSY_RETRY_AFTER_MS / 1000)) },
  });
}
