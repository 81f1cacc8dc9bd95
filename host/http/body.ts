// JSON request bodies: content type checked (415), size enforced while reading (413), parse errors 400.
import type { Context, MiddlewareHandler } from 'hono';
import { keepRawJson } from '../lib/raw-json.ts';
import { ServiceError } from '../errors.ts';
import { assertPlainJson } from '../schemas/json-guard.ts';
import type { AppEnv } from './env.ts';

/** `required`: the operation needs a JSON body; `optional`: an empty body reads as {} (svc_describe). */
export type BodyMode = 'required' | 'optional';

const JSON_TYPE = /^application\/json\s*(?:;|$)/i;
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

function checkContentType(header: string | undefined): void {
  if (header === undefined || !JSON_TYPE.test(header.trim())) {
    const got = header === undefined ? 'none' : JSON.stringify(header);
    throw new ServiceError('unsupported_media_type', `Content-Type must be application/json, got ${got}.`);
  }
  // RFC 8259 8.1: JSON exchanged between systems is UTF-8.
  const charset = CHARSET.exec(header)?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new ServiceError('unsupported_media_type', `JSON bodies must be UTF-8, got charset ${charset}.`);
  }
}

function tooLarge(limit: number): ServiceError {
  // The rest of the body is never read, so this connection cannot carry another request.
  return new ServiceError('request_too_large', `The body is larger than this server's limit of ${limit} bytes.`, {
    headers: { connection: 'close' },
  });
}

/**
 * Reads the raw body, refusing as soon as it passes `limit` bytes (never buffers more than that). `hold`
 * is told of each chunk before it is kept (the process's body budget, admission.ts); it may refuse.
 */
export async function readBodyBytes(req: Request, limit: number, hold: (bytes: number) => void = () => undefined): Promise<Uint8Array> {
  const declared = Number(req.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    try {
      if (size > limit) throw tooLarge(limit);
      hold(value.byteLength);
    } catch (err) {
      await reader.cancel().catch(() => undefined);
      throw err;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Decodes and parses a JSON body; invalid UTF-8 or JSON is 400 invalid_json. */
export function parseJsonBytes(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new ServiceError('invalid_json', 'The body is not valid UTF-8.');
  }
  try {
    const value: unknown = JSON.parse(text);
    keepRawJson(value, text);
    return value;
  } catch (err) {
    const why = err instanceof SyntaxError ? err.message : 'unparseable';
    throw new ServiceError('invalid_json', `The body is not valid JSON (${why}).`, { cause: err });
  }
}

async function readJson(c: Context<AppEnv>, mode: BodyMode, guard: boolean, hold: (bytes: number) => void): Promise<unknown> {
  const limit = c.get('services').config.maxBodyBytes;
  const declared = c.req.header('content-length');
  // docs/reference/journeys.md#describe: describe takes an empty object; an empty body (any or no content type) means the same.
  if (mode === 'optional' && (declared === '0' || (declared === undefined && !c.req.header('transfer-encoding')))) {
    return {};
  }
  checkContentType(c.req.header('content-type'));
  const bytes = await readBodyBytes(c.req.raw, limit, hold);
  if (bytes.byteLength === 0) {
    if (mode === 'optional') return {};
    throw new ServiceError('invalid_json', 'The body is empty; send a JSON object.');
  }
  const body = parseJsonBytes(bytes);
  // docs/guides/overload.md: a non-finite number or a stack-deep value is refused before anything stringifies or hashes it.
  if (guard) assertPlainJson(body);
  return body;
}

/**
 * Middleware: reads the JSON body into c.var.body. `guard` (default) refuses a body that breaks the
 * json-guard rule; /mcp reads its envelope unguarded and checks each tool call's arguments instead.
 */
export function jsonBody(mode: BodyMode, opts: { guard?: boolean } = {}): MiddlewareHandler<AppEnv> {
  const guard = opts.guard ?? true;
  return async (c, next) => {
    // Read once: a request path that spells a route with its own `:param` text matches that route twice in
    // Hono's router, which runs this middleware twice on one body.
    if (c.get('body') !== undefined) return next();
    // docs/guides/overload.md: the body's bytes count against the process's body budget until the reply is made.
    const held = c.get('services').admission.reserveBody();
    try {
      c.set('body', await readJson(c, mode, guard, held.grow));
      await next();
    } finally {
      held.release();
    }
  };
}
