// Whether the credentials a keyed event stream was opened with still hold (docs/guides/pending-asks.md, "A
// stream whose key is revoked"): an API key revoked, or an access token expired, since the stream opened
// ends it, as a new request with it is refused. Each check authenticates again, as a request does (a key's revocation is read from the
// store, so a key revoked through any node or the keys CLI is seen here), at most once a second per
// credential in this process, however many streams and events use it: every stream of one key shares the
// answer, and a stream asks at each batch of events and each wake-up (config.eventPollMs at most apart).
import { createHash } from 'node:crypto';
import { ServiceError } from '../../errors.ts';
import type { Services } from '../services.ts';
import { authenticate } from '../auth.ts';

/** How long one answer stands for every stream of a credential in this process. */
export const CREDENTIAL_RECHECK_MS = 1000;
/** Credentials remembered at most (older answers are dropped past it; they are a second old at most anyway). */
const REMEMBERED = 1000;

interface Checked {
  at: number;
  refused: Promise<ServiceError | null>;
}

const byServices = new WeakMap<Services, Map<string, Checked>>();

/**
 * A check of `authorization` (the header the stream was opened with): null while it holds, else the
 * problem a request with it gets now (401 unauthorized or invalid_token). A failure to check (the store
 * unreachable) is not a refusal: the stream goes on and the next check asks again.
 */
export function credentialCheck(services: Services, authorization: string | undefined): () => Promise<ServiceError | null> {
  const id = createHash('sha256')
    .update(authorization ?? '')
    .digest('hex');
  let checks = byServices.get(services);
  if (!checks) byServices.set(services, (checks = new Map()));
  const remembered = checks;
  return () => {
    const now = Date.now();
    const last = remembered.get(id);
    if (last && now - last.at < CREDENTIAL_RECHECK_MS) return last.refused;
    const refused = authenticate(services, authorization).then(
      () => null,
      (err: unknown) => (err instanceof ServiceError && err.status === 401 ? err : null),
    );
    if (remembered.size >= REMEMBERED) remembered.clear();
    remembered.set(id, { at: now, refused });
    return refused;
  };
}
