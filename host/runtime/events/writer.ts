// Writes one task's events to the store (docs/reference/tasks.md#events), from the process that runs the task. Before the call
// becomes a task (it may finish first) the events wait here and go in with the task itself; after, each is
// appended while this process holds the lease, and readers on this process are woken at once (hub.ts).
// A stage event replaces the one waiting before it when both are of the same step of the same fit (e.g.
// "fitting bag k of n"): each carries the whole snapshot, so the latest says everything the skipped one did.
// The first snapshot of each step is never replaced (a watcher sees every step begin: "fitting bag 1 of 8",
// even when the bags end within one gap), and every answer event is kept.
// Writes are spaced: one starts at most every EVENT_WRITE_GAP_MS (the first at once), and what comes
// meanwhile goes in the next. Each write is a transaction, and on SQLite a COMMIT waits for its fsync on
// the request thread, where a fit's progress (about 25 events a cold ask) otherwise held every other reply
// (docs/decisions/0091-background-writes-without-fsync-waits.md). flush() and close() write at once.
import type { NewTaskEvent, TaskEventKind } from '../../store/index.ts';
import type { Services } from '../services.ts';
import type { AnswerData, EventSink, StageData } from './types.ts';

/** The least time from the start of one write of a task's events to the start of the next. */
export const EVENT_WRITE_GAP_MS = 250;

export class TaskEventWriter implements EventSink {
  private taskId: string | null = null;
  private owner = '';
  private queue: NewTaskEvent[] = [];
  private writing: Promise<void> | null = null;
  private closed = false;
  /** performance.now() before which no write starts unless flushed; the timer that starts it then. */
  private nextWriteAt = 0;
  private spacing: NodeJS.Timeout | null = null;
  /** The step (and fit) of the queue's last event when it is a stage event that a newer one of its step may replace, else null. */
  private lastQueuedStep: string | null = null;
  /** Every step (stepOf) whose first snapshot has been queued: that one stays. */
  private readonly stepsBegun = new Set<string>();

  constructor(
    private readonly services: Services,
    private readonly gapMs = EVENT_WRITE_GAP_MS,
  ) {}

  stage(data: StageData): void {
    this.push('stage', data);
  }

  answer(data: AnswerData): void {
    this.push('answer', data);
  }

  private push(kind: TaskEventKind, data: StageData | AnswerData): void {
    if (this.closed) return;
    const event: NewTaskEvent = { kind, data: JSON.stringify({ task_id: this.taskId ?? '', ...data }), at: this.services.now() };
    // a queued later snapshot of the same step is outdated by this one (a step's first snapshot, other steps and
    // answers are kept, in order)
    const step = kind === 'stage' ? stepOf(data as StageData) : null;
    if (step !== null && step === this.lastQueuedStep && this.queue.length > 0) this.queue[this.queue.length - 1] = event;
    else this.queue.push(event);
    const first = step !== null && !this.stepsBegun.has(step);
    if (first) this.stepsBegun.add(step);
    this.lastQueuedStep = first ? null : step;
    if (this.taskId !== null) this.pump();
  }

  /** The events so far, to be stored with the task when the call becomes one; later ones are appended. */
  takeForTask(taskId: string): NewTaskEvent[] {
    const taken = this.queue.map((e) => withTaskId(e, taskId));
    this.queue = [];
    this.lastQueuedStep = null;
    return taken;
  }

  /** From now on events are appended to `taskId` while `owner` holds its lease. */
  attach(taskId: string, owner: string): void {
    this.taskId = taskId;
    this.owner = owner;
    this.queue = this.queue.map((e) => withTaskId(e, taskId));
    this.services.events.notify(taskId);
    this.pump();
  }

  /** Starts a write of what waits unless one is under way or the gap since the last has not passed (`now`: it has). */
  private pump(now = false): void {
    if (this.writing || this.queue.length === 0 || this.taskId === null || this.closed) return;
    const wait = this.nextWriteAt - performance.now();
    if (!now && wait > 0) {
      this.spacing ??= setTimeout(() => {
        this.spacing = null;
        this.pump();
      }, wait);
      this.spacing.unref?.();
      return;
    }
    if (this.spacing) clearTimeout(this.spacing);
    this.spacing = null;
    this.nextWriteAt = performance.now() + this.gapMs;
    const batch = this.queue;
    this.queue = [];
    this.lastQueuedStep = null;
    const taskId = this.taskId;
    this.writing = this.services.store
      .appendTaskEvents(taskId, this.owner, batch)
      .then(
        (stored) => {
          if (stored) this.services.events.notify(taskId);
          else this.closed = true; // the lease went to another process: its runner speaks for the task now
        },
        (err: unknown) => this.services.log.warn({ err, task_id: taskId }, 'task events not stored'),
      )
      .finally(() => {
        this.writing = null;
        this.pump();
      });
  }

  /**
   * Writes the events so far without waiting for the gap (a pending reply is about to name the task). Events
   * that come meanwhile may go in the same write or wait for the next, so a busy fit cannot hold the caller.
   */
  async flush(): Promise<void> {
    if (this.writing) await this.writing;
    // the write that just ended may have started the next one with what waited
    if (!this.writing) this.pump(true);
    await this.writing;
  }

  /** Waits until every event so far is stored, then takes no more (the final one goes with the task's status). */
  async close(): Promise<void> {
    // the task has ended: nothing more comes, so this ends
    while (this.writing || (this.queue.length > 0 && this.taskId !== null && !this.closed)) {
      this.pump(true);
      await this.writing;
    }
    this.closed = true;
    if (this.spacing) clearTimeout(this.spacing);
    this.spacing = null;
  }
}

/**
 * What tells one step from another: a fit's columns binned and bags boosted each share one; scoring and signing
 * are once per question, told apart by their message.
 */
function stepOf(d: StageData): string {
  return `${d.stage}/${d.step}/${d.fit ?? ''}/${d.step === 'scoring' || d.step === 'signing' ? d.message : ''}`;
}

function withTaskId(e: NewTaskEvent, taskId: string): NewTaskEvent {
  const data = JSON.parse(e.data) as Record<string, unknown>;
  return { ...e, data: JSON.stringify({ ...data, task_id: taskId }) };
}
