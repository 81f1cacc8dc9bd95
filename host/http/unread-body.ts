// A reply made before the request's body was read to its end (docs/guides/overload.md, "Connections"): a
// route that reads no body (register_agent, the GET routes), a problem found first (401, 403, 404, 405, 429,
// a bad upload link), or an upload stopped at its cap. Its unread bytes are still on the
// connection, in front of the client's next request on it, so before the reply goes the rest of the body is
// read and dropped: the connection then carries the next request. A body past DRAIN_MAX_BYTES, or one still
// arriving after DRAIN_WAIT_MS, gets its reply with `Connection: close`, and the connection ends after it.
//
// Why here and not left to the server: Node drops an unread body itself only when nothing began to read it,
// and @hono/node-server gives up on one it drains after 500 ms by closing the socket. Once the request's
// body stream exists (it does as soon as the request's signal is read, as every operation's is), that
// stream stops the body after its first chunk, nothing reads on, and the connection was closed under a
// client that had been told keep-alive: its next request on it failed ("other side closed").
import type { IncomingMessage } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.ts';

/** The most of an unread body read and dropped to keep the connection (the default JSON body limit). */
export const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
/** The longest a reply waits for the rest of its body. */
export const DRAIN_WAIT_MS = 10_000;

/** Whether the request may still have body bytes on the connection. */
function bodyPending(incoming: IncomingMessage): boolean {
  if (incoming.readableEnded || incoming.destroyed) return false;
  const length = incoming.headers['content-length'];
  return incoming.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Reads the rest of the body and drops it; true once it ended, false past `maxBytes` or `waitMs` (or on a
 * broken connection). Whatever began to read the body (a web stream over it, which pauses it once its
 * queue is full) stops being fed: the reply is made, nobody reads the body any more.
 */
function drain(incoming: IncomingMessage, maxBytes: number, waitMs: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    let seen = 0;
    const done = (ended: boolean) => {
      clearTimeout(timer);
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onBroken);
      incoming.off('close', onBroken);
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.byteLength;
      if (seen > maxBytes) done(false);
    };
    const onEnd = () => done(true);
    const onBroken = () => done(incoming.readableEnded);
    const timer = setTimeout(() => done(false), waitMs);
    incoming.removeAllListeners('data');
    incoming.on('data', onData);
    incoming.once('end', onEnd);
    incoming.once('error', onBroken);
    incoming.once('close', onBroken);
    incoming.resume();
  });
}

/** Middleware, first of all: the reply of any route goes only once its request's body is read or dropped. */
export function settleUnreadBody(maxBytes = DRAIN_MAX_BYTES, waitMs = DRAIN_WAIT_MS): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    if (!incoming || !bodyPending(incoming)) return;
    // A reply that already ends the connection (a JSON body over its limit) needs nothing more.
    if (c.res.headers.get('connection')?.toLowerCase() === 'close') return;
    const declared = Number(incoming.headers['content-length']);
    if (!(declared > maxBytes) && (await drain(incoming, maxBytes, waitMs))) return;
    try {
      c.res.headers.set('connection', 'close');
    } catch {
      // a reply whose headers are immutable: the same reply, with the header
      const headers = new Headers(c.res.headers);
      headers.set('connection', 'close');
      c.res = new Response(c.res.body, { status: c.res.status, headers });
    }
  };
}
