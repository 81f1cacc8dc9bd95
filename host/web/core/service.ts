// Talks to this page's own origin only: svc_ask (following a pending ask with svc_poll, docs/reference/tasks.md#pending),
// svc_describe and the model export. Problems (docs/reference/errors.md#problem) become ProblemError with code and remedy.
type Obj = Record<string, any>;

export class ProblemError extends Error {
  constructor(readonly problem: Obj) {
    super(
      `${problem.code ?? 'error'}: ${problem.detail ?? problem.title ?? 'request failed'}${problem.remedy ? ` ${problem.remedy}` : ''}`,
    );
    this.name = 'ProblemError';
  }
}

async function post(path: string, body: unknown, key?: string): Promise<{ status: number; body: Obj }> {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Obj;
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    parsed = { code: 'bad_reply', detail: `HTTP ${res.status}: ${text.slice(0, 200)}` };
  }
  if (res.status >= 400) throw new ProblemError(parsed);
  return { status: res.status, body: parsed };
}

export function describeService(): Promise<Obj> {
  return post('/v1/describe', {}).then((r) => r.body);
}

/**
 * Follows a pending task's event stream (docs/reference/tasks.md#events) with the key, handing each stage event's data to
 * `onStage`, until done or error, the stream's close, or `stop`. A fetch, not EventSource: the key goes in
 * the Authorization header. Errors end it quietly: polling still brings the answer.
 */
export async function followTaskEvents(taskId: string, key: string, onStage: (data: Obj) => void, stop: AbortSignal): Promise<void> {
  let lastId: string | null = null;
  for (let attempt = 0; attempt < 20 && !stop.aborted; attempt++) {
    try {
      const res = await fetch(`/v1/tasks/${encodeURIComponent(taskId)}/events`, {
        headers: { authorization: `Bearer ${key}`, ...(lastId ? { 'last-event-id': lastId } : {}) },
        signal: stop,
      });
      if (res.status !== 200 || !res.body) return;
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          lastId = /^id: (.*)$/m.exec(block)?.[1] ?? lastId;
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event === 'done' || event === 'error') return;
          if (event === 'stage' && data) onStage(JSON.parse(data));
        }
      }
    } catch {
      return;
    }
  }
}

/**
 * svc_ask; a 202 pending reply is polled until done (`onPending` hears each wait), and its stages are
 * followed live on the task's event stream (`onStage`, docs/reference/tasks.md#events).
 */
export async function askService(ask: unknown, key: string, onPending?: (r: Obj) => void, onStage?: (data: Obj) => void): Promise<Obj> {
  let r = await post('/v1/ask', ask, key);
  const started = Date.now();
  const stop = new AbortController();
  if (r.status === 202 && r.body.status === 'pending' && onStage) void followTaskEvents(r.body.task_id, key, onStage, stop.signal);
  try {
    return await pollUntilDone(r, key, started, onPending);
  } finally {
    stop.abort();
  }
}

async function pollUntilDone(
  first: { status: number; body: Obj },
  key: string,
  started: number,
  onPending?: (r: Obj) => void,
): Promise<Obj> {
  let r = first;
  while (r.status === 202 && r.body.status === 'pending') {
    onPending?.(r.body);
    if (Date.now() - started > 10 * 60_000) throw new Error('the service did not finish within 10 minutes');
    await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(Number(r.body.retry_after_ms) || 500, 100), 5000)));
    const taskId = r.body.task_id;
    r = await post('/v1/poll', { task_id: taskId }, key);
    if (r.body.task_id === undefined) r.body.task_id = taskId;
  }
  return r.body;
}

/** The export endpoint (host/operations/models/export-model.ts): {model_ref, core_hash, state, quality, model}. */
export async function exportModel(modelRef: string, key: string): Promise<Obj> {
  return (await post('/v1/export-model', { model_ref: modelRef }, key)).body;
}
