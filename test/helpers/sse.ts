// A Server-Sent Events client for tests: reads a real HTTP response as it arrives, parses events (id, event,
// JSON data) and comment lines, and can drop the connection part-way (as a client that loses its network).
export interface SseEvent {
  id: number | null;
  event: string;
  data: any;
}

export interface SseRead {
  status: number;
  headers: Headers;
  events: SseEvent[];
  comments: string[];
  /** True when the server ended the stream; false when this client dropped it. */
  endedByServer: boolean;
}

export interface SseOptions {
  headers?: Record<string, string>;
  /** Drop the connection once this returns true for an event just read. */
  stopAfter?: (e: SseEvent, all: SseEvent[]) => boolean;
  /** Give up (and drop) after this long. */
  timeoutMs?: number;
}

export async function readSse(url: string, opts: SseOptions = {}): Promise<SseRead> {
  const drop = new AbortController();
  const timer = setTimeout(() => drop.abort(), opts.timeoutMs ?? 30_000);
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...opts.headers }, signal: drop.signal });
  const out: SseRead = { status: res.status, headers: res.headers, events: [], comments: [], endedByServer: false };
  if (!res.body || res.status !== 200) {
    clearTimeout(timer);
    await res.text().catch(() => undefined);
    return out;
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        out.endedByServer = true;
        break;
      }
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const e = parseBlock(block, out.comments);
        if (!e) continue;
        out.events.push(e);
        if (opts.stopAfter?.(e, out.events)) {
          drop.abort();
          return out;
        }
      }
    }
  } catch (err) {
    if (!drop.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
  }
  return out;
}

function parseBlock(block: string, comments: string[]): SseEvent | null {
  let id: number | null = null;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) comments.push(line.slice(1).trim());
    else if (line.startsWith('id: ')) id = Number(line.slice(4));
    else if (line.startsWith('event: ')) event = line.slice(7);
    else if (line.startsWith('data: ')) data.push(line.slice(6));
  }
  if (data.length === 0) return null;
  return { id, event, data: JSON.parse(data.join('\n')) };
}
