// One task's events as Server-Sent Events (docs/reference/tasks.md#events): read from the store, so the stream works on any
// process whatever process runs the task; woken at once by a writer on this process (hub.ts), else polled.
// A fresh stream starts with the latest stage event (it carries every fact so far), a resumed one with the
// events after Last-Event-ID; heartbeats every config.eventHeartbeatMs; closed at done/error or after
// config.eventStreamMaxMs (the client reconnects with Last-Event-ID and loses nothing), or with an `error`
// event once the key it was opened with is revoked (credential-check.ts).
import { reviveProblem, toProblem, type StoredProblem } from '../../errors.ts';
import { ServiceError } from '../../errors.ts';
import type { TaskEventRecord, TaskRecord } from '../../store/index.ts';
import type { Services } from '../services.ts';

const encoder = new TextEncoder();
const BATCH = 500;

/** The SSE text of one event: its id, name and one line of JSON. */
export function sseEvent(id: number, event: string, data: unknown): string {
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** docs/reference/tasks.md#events: Last-Event-ID (header) or ?last_event_id=, a whole number; null for a fresh stream. */
export function lastEventIdOf(header: string | undefined, query: string | undefined): number | null {
  const raw = header ?? query;
  if (raw === undefined || raw.trim() === '') return null;
  const field = header !== undefined ? 'Last-Event-ID' : 'last_event_id';
  if (!/^\s*\d{1,15}\s*$/.test(raw)) {
    throw new ServiceError(
      'invalid_request',
      `${field}: must be the id of an event this stream sent (a whole number), got ${JSON.stringify(raw)}`,
      {
        field,
      },
    );
  }
  return Number(raw);
}

const finished = (t: TaskRecord) => t.status === 'done' || t.status === 'failed';

/**
 * The last event of a finished task: the stored done/error, or (a task that finished without one, from
 * before events were kept) one made from its status, numbered after the stored events.
 */
export async function terminalEvent(services: Services, task: TaskRecord): Promise<TaskEventRecord | null> {
  if (!finished(task)) return null;
  const kind = task.status === 'done' ? 'done' : 'error';
  const stored = await services.store.lastTaskEvent(task.id, kind);
  if (stored) return stored;
  const lastStage = await services.store.lastTaskEvent(task.id, 'stage');
  const after = lastStage ? lastStage.seq : 0;
  const tail = await services.store.listTaskEvents(task.id, after, BATCH);
  const seq = (tail.at(-1)?.seq ?? after) + 1;
  const data = kind === 'done' ? { task_id: task.id, status: 'done' } : errorEventData(services, task.id, JSON.parse(task.problem ?? '{}'));
  return { task_id: task.id, seq, kind, data: JSON.stringify(data), at: task.updated_at };
}

/** docs/reference/tasks.md#events `error` data for a stored problem. */
export function errorEventData(services: Services, taskId: string, stored: StoredProblem): Record<string, unknown> {
  const known: StoredProblem = stored.code ? stored : { code: 'internal', detail: 'the task failed; ask again' };
  return problemEventData(services, taskId, reviveProblem(known));
}

/** docs/reference/tasks.md#events `error` data for a problem. */
function problemEventData(services: Services, taskId: string, err: ServiceError): Record<string, unknown> {
  const p = toProblem(err, services.config.baseUrl);
  return { task_id: taskId, code: p.code, detail: p.detail, remedy: p.remedy, doc_url: p.doc_url };
}

export interface StreamOptions {
  task: TaskRecord;
  /** Last-Event-ID, or null for a fresh stream. */
  after: number | null;
  /** The done event's result_url (the key's stream); null on a watch link (docs/reference/tasks.md#watch). */
  resultUrl: string | null;
  signal: AbortSignal;
  /** Called once when the stream ends, however it ends. */
  onClose?: () => void;
  /**
   * Whether the credentials the stream was opened with still hold (credential-check.ts): asked before each
   * batch of events; a refusal ends the stream with an `error` event carrying that problem.
   */
  stillAllowed?: () => Promise<ServiceError | null>;
}

export function taskEventStream(services: Services, o: StreamOptions): ReadableStream<Uint8Array> {
  const { store, config, events } = services;
  const taskId = o.task.id;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  o.signal.addEventListener('abort', onAbort, { once: true });
  let closed = false;
  const end = () => {
    if (closed) return;
    closed = true;
    stop.abort();
    o.signal.removeEventListener('abort', onAbort);
    o.onClose?.();
  };

  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const started = performance.now();
      let lastWrite = started;
      const write = (text: string) => {
        if (closed) return;
        controller.enqueue(encoder.encode(text));
        lastWrite = performance.now();
      };
      const send = (e: TaskEventRecord) => write(sseEvent(e.seq, e.kind, outgoing(e, o.resultUrl)));
      try {
        // A reconnecting client waits about a second; the comment makes the headers go out at once.
        write(`: events of task ${taskId}\nretry: 1000\n\n`);
        let cursor = o.after ?? 0;
        if (o.after === null) {
          const current = await store.lastTaskEvent(taskId, 'stage');
          if (current) {
            send(current);
            cursor = current.seq;
          }
        }
        while (!stop.signal.aborted) {
          const refused = await o.stillAllowed?.();
          if (refused) {
            // Its id is the last one sent (none: 0), so a client that reconnects with another key loses nothing.
            write(sseEvent(cursor, 'error', problemEventData(services, taskId, refused)));
            return;
          }
          const batch = await store.listTaskEvents(taskId, cursor, BATCH);
          for (const e of batch) {
            send(e);
            cursor = e.seq;
            if (e.kind === 'done' || e.kind === 'error') return;
          }
          if (batch.length === BATCH) continue;
          if (batch.length === 0) {
            const task = await store.getTask(o.task.workspace_id, taskId);
            if (!task) return; // swept (24 hours): nothing more will come
            if (finished(task)) {
              // Its events landed after the read above (done/error is stored with the status): send them.
              if ((await store.listTaskEvents(taskId, cursor, 1)).length > 0) continue;
              // Finished without a stored last event (a task from before events were kept): made from its status.
              const last = await terminalEvent(services, task);
              if (last && last.seq > cursor) send(last);
              return;
            }
          }
          const elapsed = performance.now() - started;
          if (elapsed >= config.eventStreamMaxMs) return; // docs/reference/tasks.md#events: closed within about five minutes
          const untilBeat = config.eventHeartbeatMs - (performance.now() - lastWrite);
          if (untilBeat <= 0) {
            write(': heartbeat\n\n');
            continue;
          }
          await events.wait(taskId, Math.min(config.eventPollMs, untilBeat, config.eventStreamMaxMs - elapsed), stop.signal);
        }
      } catch (err) {
        services.log.warn({ err, task_id: taskId }, 'task event stream failed');
      } finally {
        end();
        try {
          controller.close();
        } catch {
          // already cancelled by the client
        }
      }
    },
    cancel() {
      end();
    },
  });
}

/** An event as it goes out: a done event names the result's URL on the key's stream only (docs/reference/errors.md#problem). */
function outgoing(e: TaskEventRecord, resultUrl: string | null): unknown {
  const data = JSON.parse(e.data) as Record<string, unknown>;
  if (e.kind !== 'done') return data;
  delete data.result_url;
  return resultUrl ? { ...data, result_url: resultUrl } : data;
}
