// Signed upload tokens for `PUT /v1/uploads/<token>` (wire.md "Datasets": presigned, expires_in 3600).
// The HMAC key is a random secret kept in DATA_DIR, so URLs survive a restart within their lifetime.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ServiceError } from '../../http/problem.ts';
import type { Config } from '../../services.ts';

/** wire.md: an upload URL is good for an hour. */
export const UPLOAD_TTL_SECONDS = 3600;
const SECRET_FILE = 'upload-token.key';
const CONTEXT = 'upload-v1.';

export interface UploadGrant {
  datasetId: string;
  workspaceId: string;
  /** Epoch seconds after which the token is refused. */
  expiresAt: number;
}

const secrets = new Map<string, Buffer>();

/** The secret under dataDir, created on first use; a concurrent creator's file wins (O_EXCL). */
function secretFor(dataDir: string): Buffer {
  const file = path.join(dataDir, SECRET_FILE);
  let secret = secrets.get(file);
  if (secret) return secret;
  fs.mkdirSync(dataDir, { recursive: true });
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

function mac(config: Config, payload: string): Buffer {
  return createHmac('sha256', secretFor(config.dataDir)).update(CONTEXT + payload).digest();
}

export function signUploadToken(config: Config, grant: UploadGrant): string {
  const payload = Buffer.from(JSON.stringify({ d: grant.datasetId, w: grant.workspaceId, e: grant.expiresAt })).toString('base64url');
  return `${payload}.${mac(config, payload).toString('base64url')}`;
}

const invalid = () =>
  new ServiceError('unauthorized', 'The upload URL is not valid; request a new one with add-dataset (upload: true).');

/** The grant a token carries; 401 when it is malformed, forged, or past its expiry at `nowMs`. */
export function verifyUploadToken(config: Config, token: string, nowMs: number): UploadGrant {
  const match = /^([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) throw invalid();
  const [, payload, signature] = match;
  const given = Buffer.from(signature, 'base64url');
  const expected = mac(config, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  let grant: { d?: unknown; w?: unknown; e?: unknown };
  try {
    grant = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof grant;
  } catch {
    throw invalid();
  }
  if (typeof grant.d !== 'string' || typeof grant.w !== 'string' || typeof grant.e !== 'number') throw invalid();
  if (nowMs >= grant.e * 1000) {
    throw new ServiceError('unauthorized', `The upload URL expired at ${new Date(grant.e * 1000).toISOString()}; request a new one with add-dataset (upload: true).`);
  }
  return { datasetId: grant.d, workspaceId: grant.w, expiresAt: grant.e };
}
