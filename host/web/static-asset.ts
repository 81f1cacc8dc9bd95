// One static file as the web pages serve it: its bytes, type and content hash (the ETag), sent with the
// security headers every page here shares and the page's own Content-Security-Policy. A request that
// names the current ETag in If-None-Match gets 304 and no body.
import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import type { AppEnv } from '../http/env.ts';

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

export interface Asset {
  body: Uint8Array;
  type: string;
  etag: string;
  /** The Content-Security-Policy sent with it (none for a file that is not a document). */
  csp?: string;
}

export function asset(body: string | Uint8Array, type: string, csp?: string): Asset {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  return { body: bytes, type, csp, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"` };
}

export function send(c: Context<AppEnv>, a: Asset): Response {
  const headers: Record<string, string> = { ...SECURITY_HEADERS, 'content-type': a.type, etag: a.etag, 'cache-control': 'no-cache' };
  if (a.csp) headers['content-security-policy'] = a.csp;
  if (c.req.header('if-none-match') === a.etag) return new Response(null, { status: 304, headers });
  return new Response(a.body as Uint8Array<ArrayBuffer>, { status: 200, headers });
}
