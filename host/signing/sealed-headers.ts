// fetch_headers kept encrypted (docs/reference/map.md#map, docs/reference/schedules.md#schedule "kept encrypted, never echoed", "the encrypted headers"): a
// mapping's and a schedule's per-source request headers sealed with AES-256-GCM under the service's key
// (TokenSecrets.headers, shared by every node through the store), so a replay or a scheduled run can
// fetch again with them while the store never holds them in the clear.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Headers per source index ("0", "1", "2"), as the request gave them. */
export type SourceHeaders = Record<string, Record<string, string>>;

const VERSION = 'v1';

/** `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
export function sealHeaders(key: Uint8Array, headers: SourceHeaders): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(headers), 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

/** The headers sealed by sealHeaders under the same key; throws when the text was altered or sealed under another key. */
export function openHeaders(key: Uint8Array, sealed: string): SourceHeaders {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) throw new Error('not a sealed header set');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  const text = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  return JSON.parse(text) as SourceHeaders;
}

/** The sources' headers by index, or null when none has any. */
export function headersOf(sources: ReadonlyArray<{ fetch_headers?: Record<string, string> }>): SourceHeaders | null {
  const out: SourceHeaders = {};
  sources.forEach((s, i) => {
    if (s.fetch_headers && Object.keys(s.fetch_headers).length > 0) out[String(i)] = s.fetch_headers;
  });
  return Object.keys(out).length > 0 ? out : null;
}
