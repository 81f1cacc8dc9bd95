// A Server-Sent Events reader over fetch: a task's event stream (docs/reference/tasks.md#events) as it
// arrives, one event at a time, with the id of each so a dropped stream can resume with Last-Event-ID.

export interface StreamEvent {
  /** The event's `id:` line (integers 1, 2, ... per task), or null when it had none. */
  id: number | null;
  event: string;
  data: any;
}

/** Reads the events of `body` until it ends; comment lines (the 15-second keep-alives) call `onComment`. */
export async function* readEvents(body: ReadableStream<Uint8Array>, onComment?: () => void): AsyncGenerator<StreamEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const event = parseBlock(block, onComment);
        if (event) yield event;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

function parseBlock(block: string, onComment?: () => void): StreamEvent | null {
  let id: number | null = null;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) {
      onComment?.();
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id' && /^\d+$/.test(value)) id = Number(value);
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return null;
  const text = data.join('\n');
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { id, event, data: parsed };
}
