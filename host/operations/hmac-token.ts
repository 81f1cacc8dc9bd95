// Opaque signed tokens (upload URLs, lever tokens): a base64url JSON payload and an HMAC-SHA256 of it
// under a random secret kept in DATA_DIR (created on first use, mode 0600), so tokens survive restarts.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const secrets = new Map<string, Buffer>();

/** The secret in `file`, created on first use; a concurrent creator's file wins (O_EXCL). */
function secretIn(file: string): Buffer {
  let secret = secrets.get(file);
  if (secret) return secret;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  try {
    fs.writeFileSync(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  secret = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
  if (secret.length < 32) throw new Error(`${file} is not a 32-byte hex secret`);
  secrets.set(file, secret);
  return secret;
}

export interface TokenCodec {
  sign(dataDir: string, payload: unknown): string;
  /** The payload of a well-formed token signed here, else null (never throws). */
  open(dataDir: string, token: string): unknown;
}

/**
 * A codec whose tokens are bound to `context` (so one kind's token never opens as another's) and
 * signed with the secret in `DATA_DIR/<secretFile>`. `maxPayloadChars` bounds what is parsed.
 */
export function tokenCodec(secretFile: string, context: string, maxPayloadChars = Infinity): TokenCodec {
  const mac = (dataDir: string, payload: string) =>
    createHmac('sha256', secretIn(path.join(dataDir, secretFile)))
      .update(context + payload)
      .digest();
  return {
    sign(dataDir, value) {
      const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
      return `${payload}.${mac(dataDir, payload).toString('base64url')}`;
    },
    open(dataDir, token) {
      const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(token);
      if (!match || match[1].length > maxPayloadChars) return null;
      const [, payload, signature] = match;
      const given = Buffer.from(signature, 'base64url');
      const expected = mac(dataDir, payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      try {
        return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
      } catch {
        return null;
      }
    },
  };
}
