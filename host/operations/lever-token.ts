// Lever tokens (wire.md "Answers": an opaque signed token naming model, case, feature and target,
// used by svc_attest): JSON payload + HMAC-SHA256 under a random secret kept in DATA_DIR, so tokens
// survive restarts. Deterministic: the same lever always gets the same token (no clock inside).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ServiceError } from '../http/problem.ts';
import type { Config } from '../services.ts';

const SECRET_FILE = 'lever-token.key';
const CONTEXT = 'lever-v1.';

export type LeverDirection = 'increase' | 'decrease' | 'to_one_of';

/** What a lever token names: the case's bin of `feature` when the lever was given, and where to move it. */
export interface LeverGrant {
  modelRef: string;
  entityId: string;
  feature: string;
  /** The case's bin of the feature in the model when the lever was given. */
  bin: number;
  direction: LeverDirection;
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

export function signLeverToken(config: Config, g: LeverGrant): string {
  const payload = Buffer.from(JSON.stringify({ m: g.modelRef, e: g.entityId, f: g.feature, b: g.bin, d: g.direction })).toString('base64url');
  return `${payload}.${mac(config, payload).toString('base64url')}`;
}

const invalid = () =>
  new ServiceError('invalid_request', 'lever_token is not a lever token of this service; pass a lever_token exactly as an answer gave it', {
    field: 'lever_token',
  });

const DIRECTIONS: ReadonlySet<string> = new Set(['increase', 'decrease', 'to_one_of']);

/** The grant a token carries; invalid_request at `lever_token` when it is malformed or forged. */
export function verifyLeverToken(config: Config, token: string): LeverGrant {
  // entity ids have no length limit (spec 2.4), so neither has the payload beyond the body's own
  const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) throw invalid();
  const [, payload, signature] = match;
  const given = Buffer.from(signature, 'base64url');
  const expected = mac(config, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  let g: { m?: unknown; e?: unknown; f?: unknown; b?: unknown; d?: unknown };
  try {
    g = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof g;
  } catch {
    throw invalid();
  }
  if (typeof g.m !== 'string' || typeof g.e !== 'string' || typeof g.f !== 'string' || !Number.isInteger(g.b) || !DIRECTIONS.has(g.d as string)) {
    throw invalid();
  }
  return { modelRef: g.m, entityId: g.e, feature: g.f, bin: g.b as number, direction: g.d as LeverDirection };
}
