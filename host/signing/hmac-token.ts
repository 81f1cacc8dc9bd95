// Opaque signed tokens (upload URLs, lever tokens): a base64url JSON payload and an HMAC-SHA256 of it under a
// random secret per purpose, kept in the store so every node of a cluster signs and accepts the same tokens
// and they survive restarts.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { CoordinationStore } from '../store/index.ts';

/** The HMAC secrets of the service, one per kind of token (Services.secrets). */
export interface TokenSecrets {
  lever: Uint8Array;
  upload: Uint8Array;
  /** Watch links (docs/reference/tasks.md#watch). */
  watch: Uint8Array;
  /** Stored-answer links and page cursors (docs/reference/models.md#stored-answers). */
  answer: Uint8Array;
  /** Not an HMAC secret: the AES-256-GCM key fetch_headers are kept under (docs/reference/map.md#map, docs/reference/schedules.md#schedule; sealed-headers.ts). */
  headers: Uint8Array;
}

/** What signs and opens links: the service's base URL and its secrets (a part of Services). */
export interface LinkSigning {
  config: { baseUrl: string };
  secrets: TokenSecrets;
}

const SECRET_BYTES = 32;

/**
 * The secrets from the store, made on the first start (the first node's candidate wins when nodes start
 * together). A secret file an earlier version kept under DATA_DIR (`lever-token.key`, `upload-token.key`)
 * becomes the candidate, so lever tokens in answers given before the upgrade keep working.
 */
export async function loadTokenSecrets(
  store: Pick<CoordinationStore, 'ensureSecret'>,
  dataDir: string,
  now: number,
): Promise<TokenSecrets> {
  const load = (purpose: string, legacyFile: string) =>
    store.ensureSecret(purpose, legacySecret(path.join(dataDir, legacyFile)) ?? randomBytes(SECRET_BYTES), now);
  const [lever, upload, watch, answer, headers] = await Promise.all([
    load('lever-token', 'lever-token.key'),
    load('upload-token', 'upload-token.key'),
    load('watch-token', 'watch-token.key'),
    load('answer-token', 'answer-token.key'),
    store.ensureSecret('fetch-headers', randomBytes(SECRET_BYTES), now),
  ]);
  return { lever, upload, watch, answer, headers };
}

function legacySecret(file: string): Uint8Array | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
  const secret = Buffer.from(text, 'hex');
  return /^[0-9a-f]+$/i.test(text) && secret.length >= SECRET_BYTES ? secret : null;
}

export interface TokenCodec {
  sign(secret: Uint8Array, payload: unknown): string;
  /** The payload of a well-formed token signed with `secret`, else null (never throws). */
  open(secret: Uint8Array, token: string): unknown;
}

/** A codec whose tokens are bound to `context` (so one kind's token never opens as another's); `maxPayloadChars` bounds what is parsed. */
export function tokenCodec(context: string, maxPayloadChars = Infinity): TokenCodec {
  const mac = (secret: Uint8Array, payload: string) =>
    createHmac('sha256', secret)
      .update(context + payload)
      .digest();
  return {
    sign(secret, value) {
      const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
      return `${payload}.${mac(secret, payload).toString('base64url')}`;
    },
    open(secret, token) {
      const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(token);
      if (!match || match[1].length > maxPayloadChars) return null;
      const [, payload, signature] = match;
      // Compared as text: base64url of 32 bytes leaves 2 unused bits in its last character, so comparing the
      // decoded bytes would accept a token whose last character was changed within them.
      const given = Buffer.from(signature, 'ascii');
      const expected = Buffer.from(mac(secret, payload).toString('base64url'), 'ascii');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      try {
        return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
      } catch {
        return null;
      }
    },
  };
}
