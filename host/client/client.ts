// A small typed client of the service's REST API (docs/reference/): the key on every call, retries that
// honour Retry-After on 429 and 503, idempotency keys on asks, and a pending ask followed to its answer
// through the task's event stream (resumed with Last-Event-ID when it drops) or, failing that, by polling
// (docs/reference/tasks.md). Used by the command line (host/cli/client/) and usable on its own.
import { randomUUID } from 'node:crypto';
import { readEvents, type StreamEvent } from './sse.ts';
import type { AskReply, PendingReply, Problem, Reply } from './types.ts';

export type { StreamEvent } from './sse.ts';
export type * from './types.ts';

export interface ClientOptions {
  baseUrl: string;
  apiKey?: string;
  /** Tries per request on 429, 503 and network errors (of requests safe to repeat); default 4. */
  tries?: number;
  /** The longest wait a Retry-After may ask for before the client gives up instead; default 60 s. */
  maxRetryWaitMs?: number;
  /** Called before each retry (to show it). */
  onRetry?: (info: { status: number | null; waitMs: number; attempt: number }) => void;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
}

/** A Problem (RFC 9457) the service answered, or a failure to reach it (status 0). */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(problem.detail ?? problem.title ?? `HTTP ${status}`);
    this.name = 'ServiceError';
  }
}

export interface FollowHandlers {
  /** Each event of the stream, in order, once (resumed streams send only later ids). */
  onEvent?: (event: StreamEvent) => void;
  /** Each pending reply seen while polling (the stream could not be read). */
  onPending?: (reply: PendingReply) => void;
  /** The stream dropped and is being reopened after `lastEventId`. */
  onReconnect?: (lastEventId: number | null, attempt: number) => void;
  /** The stream could not be read; following by polling from now on. */
  onPolling?: (why: string) => void;
  /** Silence after which the stream counts as dropped (the service comments every 15 s); default 45 s. */
  silenceMs?: number;
  /** Failed (re)connections in a row before falling back to polling; default 3. */
  streamTries?: number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class ServiceClient {
  readonly baseUrl: string;
  private readonly opts: ClientOptions;
  private readonly fetchFn: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(opts: ClientOptions) {
    this.opts = opts;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.fetchFn = opts.fetch ?? fetch;
    this.sleep = opts.sleep ?? defaultSleep;
  }

  /** `path` under the base URL, or an absolute URL the service gave (a result_url, an upload link). */
  url(path: string): string {
    return /^https?:\/\//.test(path) ? path : this.baseUrl + path;
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = { ...extra };
    if (this.opts.apiKey) h.authorization = `Bearer ${this.opts.apiKey}`;
    return h;
  }

  /**
   * One call, retried on 429 and 503 after the Retry-After the service sent, and on network errors when
   * `repeatable` (every POST with an idempotency key, every GET). Resolves with the status and parsed body
   * of a 2xx; throws ServiceError otherwise.
   */
  async request(
    method: string,
    path: string,
    init: { json?: unknown; body?: BodyInit; headers?: Record<string, string>; repeatable?: boolean; key?: boolean } = {},
  ): Promise<{ status: number; body: any; headers: Headers }> {
    const tries = Math.max(1, this.opts.tries ?? 4);
    const maxWait = this.opts.maxRetryWaitMs ?? 60_000;
    const extra: Record<string, string> = { accept: 'application/json', ...init.headers };
    if (init.json !== undefined) extra['content-type'] = 'application/json';
    const headers = init.key === false ? extra : this.headers(extra);
    const body = init.json !== undefined ? JSON.stringify(init.json) : init.body;
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        res = await this.fetchFn(this.url(path), { method, headers, body });
      } catch (err) {
        const repeatable = init.repeatable ?? method === 'GET';
        if (!repeatable || attempt >= tries) {
          throw new ServiceError(0, {
            title: 'Service unreachable',
            detail: `could not reach ${this.url(path)}: ${causeOf(err)}`,
            code: 'unreachable',
          });
        }
        const waitMs = Math.min(maxWait, 500 * 2 ** (attempt - 1));
        this.opts.onRetry?.({ status: null, waitMs, attempt });
        await this.sleep(waitMs);
        continue;
      }
      const text = await res.text();
      let parsed: any = null;
      if (text) {
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
      }
      if (res.ok) return { status: res.status, body: parsed, headers: res.headers };
      if ((res.status === 429 || res.status === 503) && attempt < tries) {
        const waitMs = retryAfterMs(res.headers.get('retry-after'), parsed) ?? 1000 * attempt;
        if (waitMs <= maxWait) {
          this.opts.onRetry?.({ status: res.status, waitMs, attempt });
          await this.sleep(waitMs);
          continue;
        }
      }
      const problem: Problem =
        parsed && typeof parsed === 'object' ? parsed : { title: res.statusText, detail: String(parsed ?? res.statusText) };
      throw new ServiceError(res.status, problem);
    }
  }

  post(path: string, json: unknown, repeatable = false) {
    return this.request('POST', path, { json, repeatable });
  }

  /**
   * `POST /v1/ask`. An idempotency key is added when the body has none, so a retry after a dropped
   * connection gets the same task instead of starting a second fit (docs/reference/ask.md#request-fields).
   */
  async ask(body: Record<string, unknown>): Promise<Reply> {
    const withKey = body.idempotency_key ? body : { ...body, idempotency_key: `cli-${randomUUID()}` };
    return (await this.request('POST', '/v1/ask', { json: withKey, repeatable: true })).body as Reply;
  }

  /** `POST /v1/poll`: the pending reply while the task runs, the finished reply after. */
  async poll(taskId: string): Promise<Reply> {
    return (await this.request('POST', '/v1/poll', { json: { task_id: taskId }, repeatable: true })).body as Reply;
  }

  /** Polls until the task is done, waiting `retry_after_ms` between polls. */
  async pollUntilDone(taskId: string, onPending?: (reply: PendingReply) => void): Promise<Reply> {
    for (;;) {
      const reply = await this.poll(taskId);
      if (reply.status !== 'pending') return reply;
      onPending?.(reply as PendingReply);
      await this.sleep(Math.min(5_000, Math.max(100, (reply as PendingReply).retry_after_ms ?? 1000)));
    }
  }

  /**
   * Opens the task's event stream once from after `lastEventId`. Resolves with what happened: `done`
   * when the stream sent done or error (or answered 204: nothing after the id, the task finished),
   * `ended` when it closed or went silent without one.
   */
  async streamOnce(
    taskId: string,
    lastEventId: number | null,
    onEvent: (e: StreamEvent) => void,
    silenceMs: number,
  ): Promise<'done' | 'ended'> {
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => abort.abort(), silenceMs);
    };
    arm();
    const headers = this.headers({ accept: 'text/event-stream' });
    if (lastEventId !== null) headers['last-event-id'] = String(lastEventId);
    try {
      const res = await this.fetchFn(this.url(`/v1/tasks/${encodeURIComponent(taskId)}/events`), {
        headers,
        signal: abort.signal,
      });
      if (res.status === 204) return 'done';
      if (res.status !== 200 || !res.body || !(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
        const text = await res.text().catch(() => '');
        let problem: Problem = { title: `HTTP ${res.status}`, detail: `the event stream answered ${res.status}` };
        try {
          if (text) problem = JSON.parse(text);
        } catch {
          // not a problem document
        }
        throw new ServiceError(res.status, problem);
      }
      for await (const event of readEvents(res.body, arm)) {
        arm();
        onEvent(event);
        if (event.event === 'done' || event.event === 'error') {
          abort.abort();
          return 'done';
        }
      }
      return 'ended';
    } catch (err) {
      if (err instanceof ServiceError) throw err;
      return 'ended'; // dropped, or silent past silenceMs
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Follows a pending task to its reply: its event stream first, reopened with Last-Event-ID after each
   * drop (so no event is shown twice or missed), then by polling when the stream cannot be read
   * (`streamTries` failures in a row, or a status other than 200/204). Throws ServiceError when the task
   * failed (its Problem) or the key was refused.
   */
  async follow(taskId: string, h: FollowHandlers = {}): Promise<Reply> {
    let last: number | null = null;
    let failures = 0;
    const streamTries = h.streamTries ?? 3;
    const onEvent = (e: StreamEvent) => {
      if (e.id !== null) {
        if (last !== null && e.id <= last) return; // already shown
        last = e.id;
      }
      failures = 0;
      h.onEvent?.(e);
    };
    for (let attempt = 1; ; attempt++) {
      let outcome: 'done' | 'ended';
      try {
        outcome = await this.streamOnce(taskId, last, onEvent, h.silenceMs ?? 45_000);
      } catch (err) {
        const status = (err as ServiceError).status;
        if (status === 401 || status === 403 || status === 404) throw err;
        h.onPolling?.((err as Error).message);
        break;
      }
      if (outcome === 'done') break;
      failures++;
      if (failures >= streamTries) {
        h.onPolling?.(`the event stream dropped ${failures} times in a row`);
        break;
      }
      h.onReconnect?.(last, attempt);
      await this.sleep(Math.min(5_000, 250 * 2 ** (failures - 1)));
    }
    return this.pollUntilDone(taskId, h.onPending);
  }

  /** Asks and, when the reply is pending, follows the task to its answer. */
  async askAndWait(body: Record<string, unknown>, h: FollowHandlers & { onStart?: (p: PendingReply) => void } = {}) {
    const first = await this.ask(body);
    if (first.status !== 'pending') return first as AskReply;
    h.onStart?.(first as PendingReply);
    return (await this.follow((first as PendingReply).task_id, h)) as AskReply;
  }

  /** The service's public keys (no key needed). */
  async jwks(): Promise<{ keys: Array<Record<string, unknown>> }> {
    return (await this.request('GET', '/.well-known/jwks.json', { key: false })).body;
  }
}

/** Retry-After in seconds or as an HTTP date, else the body's `retry_after_ms`. */
export function retryAfterMs(header: string | null, body?: any): number | null {
  if (header) {
    if (/^\d+(\.\d+)?$/.test(header.trim())) return Math.round(Number(header) * 1000);
    const at = Date.parse(header);
    if (!Number.isNaN(at)) return Math.max(0, at - Date.now());
  }
  if (body && typeof body === 'object' && typeof body.retry_after_ms === 'number') return body.retry_after_ms;
  return null;
}

function causeOf(err: unknown): string {
  const e = err as { cause?: { code?: string; message?: string }; message?: string };
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}
