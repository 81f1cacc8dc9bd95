// Writes one task's events to the store (docs/reference/tasks.md#events), from the process that runs the task. Before the call
// becomes a task (it may finish first) the events wait here and go in with the task itself; after, each is
// appended while this process holds the lease, and readers on this process are woken at once (hub.ts).
// Stage events replace each other while a write is in flight: each carries the whole snapshot, so the
// latest says everything the skipped ones did; answer events are never dropped.
import type { NewTaskEvent, TaskEventKind } from '../../store/index.ts';
import type { Services } from '../services.ts';
import type { AnswerData, EventSink, StageData } from './types.ts';

export class TaskEventWriter implements EventSink {
  private taskId: string | null = null;
  private owner = '';
  private queue: NewTaskEvent[] = [];
  private writing: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly services: Services) {}

  stage(data: StageData): void {
    this.push('stage', data);
  }

  answer(data: AnswerData): void {
    this.push('answer', data);
  }

  private push(kind: TaskEventKind, data: StageData | AnswerData): void {
    if (this.closed) return;
    const event: NewTaskEvent = { kind, data: JSON.stringify({ task_id: this.taskId ?? '', ...data }), at: this.services.now() };
    const last = this.queue.at(-1);
    // the queued stage snapshot is outdated by this one (answers are kept, in order)
    if (kind === 'stage' && last?.kind === 'stage') this.queue[this.queue.length - 1] = event;
    else this.queue.push(event);
    if (this.taskId !== null) this.pump();
  }

  /** The events so far, to be stored with the task when the call becomes one; later ones are appended. */
  takeForTask(taskId: string): NewTaskEvent[] {
    const taken = this.queue.map((e) => withTaskId(e, taskId));
    this.queue = [];
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

  private pump(): void {
    if (this.writing || this.queue.length === 0 || this.taskId === null) return;
    const batch = this.queue;
    this.queue = [];
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

  /** Waits until every event so far is stored, then takes no more (the final one goes with the task's status). */
  async close(): Promise<void> {
    while (this.writing || (this.queue.length > 0 && this.taskId !== null && !this.closed)) {
      this.pump();
      await this.writing;
    }
    this.closed = true;
  }
}

function withTaskId(e: NewTaskEvent, taskId: string): NewTaskEvent {
  const data = JSON.parse(e.data) as Record<string, unknown>;
  return { ...e, data: JSON.stringify({ ...data, task_id: taskId }) };
}
