// Lever tokens (docs/reference/ask.md#answer: an opaque signed token naming model, case, feature and target,
// used by svc_attest): JSON payload + HMAC-SHA256 under a random secret kept in the store, so tokens
// survive restarts and any node accepts another's. Deterministic: the same lever always gets the same
// token (no clock inside).
import { ServiceError } from '../errors.ts';
import { tokenCodec, type TokenSecrets } from './hmac-token.ts';

// entity ids have no length limit (docs/reference/ask.md#cases), so neither has the payload beyond the body's own
const codec = tokenCodec('lever-v1.');

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

export function signLeverToken(secrets: TokenSecrets, g: LeverGrant): string {
  return codec.sign(secrets.lever, { m: g.modelRef, e: g.entityId, f: g.feature, b: g.bin, d: g.direction });
}

const invalid = () =>
  new ServiceError('invalid_request', 'lever_token is not a lever token of this service; pass a lever_token exactly as an answer gave it', {
    field: 'lever_token',
  });

const DIRECTIONS: ReadonlySet<string> = new Set(['increase', 'decrease', 'to_one_of']);

/** The grant a token carries; invalid_request at `lever_token` when it is malformed or forged. */
export function verifyLeverToken(secrets: TokenSecrets, token: string): LeverGrant {
  const g = codec.open(secrets.lever, token) as { m?: unknown; e?: unknown; f?: unknown; b?: unknown; d?: unknown } | null;
  if (!g) throw invalid();
  if (
    typeof g.m !== 'string' ||
    typeof g.e !== 'string' ||
    typeof g.f !== 'string' ||
    !Number.isInteger(g.b) ||
    !DIRECTIONS.has(g.d as string)
  ) {
    throw invalid();
  }
  return { modelRef: g.m, entityId: g.e, feature: g.f, bin: g.b as number, direction: g.d as LeverDirection };
}
