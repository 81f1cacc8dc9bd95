// Signed upload tokens for `PUT /v1/uploads/<token>` (docs/reference/datasets.md: presigned, expires_in 3600).
// The HMAC key is a random secret kept in the store, so URLs survive a restart within their lifetime and
// any node of a cluster takes an upload whichever node handed out its URL.
import { ServiceError } from '../errors.ts';
import { tokenCodec, type TokenSecrets } from './hmac-token.ts';

/** docs/reference/datasets.md: an upload URL is good for an hour. */
export const UPLOAD_TTL_SECONDS = 3600;
const codec = tokenCodec('upload-v1.', 400);

export interface UploadGrant {
  datasetId: string;
  workspaceId: string;
  /** Epoch seconds after which the token is refused. */
  expiresAt: number;
}

export function signUploadToken(secrets: TokenSecrets, grant: UploadGrant): string {
  return codec.sign(secrets.upload, { d: grant.datasetId, w: grant.workspaceId, e: grant.expiresAt });
}

const invalid = () => new ServiceError('unauthorized', 'The upload URL is not valid; request a new one with add-dataset (upload: true).');

/** The grant a token carries; 401 when it is malformed, forged, or past its expiry at `nowMs`. */
export function verifyUploadToken(secrets: TokenSecrets, token: string, nowMs: number): UploadGrant {
  const grant = codec.open(secrets.upload, token) as { d?: unknown; w?: unknown; e?: unknown } | null;
  if (!grant) throw invalid();
  if (typeof grant.d !== 'string' || typeof grant.w !== 'string' || typeof grant.e !== 'number') throw invalid();
  if (nowMs >= grant.e * 1000) {
    throw new ServiceError(
      'unauthorized',
      `The upload URL expired at ${new Date(grant.e * 1000).toISOString()}; request a new one with add-dataset (upload: true).`,
    );
  }
  return { datasetId: grant.d, workspaceId: grant.w, expiresAt: grant.e };
}
