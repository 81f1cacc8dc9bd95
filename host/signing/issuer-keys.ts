// One trusted issuer's signing keys (RFC 7517 JWKS, found through its discovery document unless configured):
// fetched with a timeout, cached, refetched when a token names a kid the cache lacks, and never fetched more
// than once per MIN_REFRESH_MS whatever arrives, so neither a flood of made-up kids nor an issuer that is
// down turns requests into fetches; while the issuer is down the keys last fetched keep working.
import { createLocalJWKSet, errors, type FlattenedJWSInput, type JSONWebKeySet, type JWSHeaderParameters } from 'jose';

/** Least time between two fetches of one issuer's keys (jose's remote set uses the same 30 s cooldown). */
export const MIN_REFRESH_MS = 30_000;
/** Keys older than this are refetched in the background (a key the issuer withdrew stops working). */
export const MAX_KEYS_AGE_MS = 10 * 60_000;
/** A discovery document or key set larger than this is refused (a real one is a few kB). */
const MAX_DOCUMENT_BYTES = 1024 * 1024;

/** No keys could be had for this token: the fetch failed or may not be retried yet. Not the caller's fault. */
export class KeysUnavailable extends Error {
  override name = 'KeysUnavailable';
  constructor(
    message: string,
    /** Until the next fetch is allowed. */
    readonly retryAfterMs: number,
  ) {
    super(message);
  }
}

export interface KeySource {
  issuer: string;
  jwksUri?: string;
  jwksTimeoutMs: number;
}

type LocalSet = ReturnType<typeof createLocalJWKSet>;
type KeyOf = Awaited<ReturnType<LocalSet>>;

/** OpenID Connect Discovery 1.0 section 4: {issuer}/.well-known/openid-configuration, trailing slash removed first. */
export function discoveryUrlOf(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

async function readCapped(res: Response, url: string): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > MAX_DOCUMENT_BYTES) throw new Error(`${url} is larger than ${MAX_DOCUMENT_BYTES} bytes`);
  const reader = res.body?.getReader();
  if (!reader) return '';
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_DOCUMENT_BYTES) {
      await reader.cancel();
      throw new Error(`${url} is larger than ${MAX_DOCUMENT_BYTES} bytes`);
    }
    parts.push(value);
  }
  return Buffer.concat(parts).toString('utf8');
}

async function fetchJson(url: string, timeoutMs: number): Promise<unknown> {
  let res: Response;
  try {
    // The operator named these URLs: a redirect elsewhere is a misconfiguration to see, not to follow.
    res = await fetch(url, { headers: { accept: 'application/json' }, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) {
      await res.body?.cancel();
      throw new Error(`${url} answered HTTP ${res.status}`);
    }
    const text = await readCapped(res, url);
    try {
      return JSON.parse(text);
    } catch {
      throw new Error(`${url} did not answer JSON`);
    }
  } catch (err) {
    if (err instanceof DOMException && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
      throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    }
    if (err instanceof TypeError)
      throw new Error(`${url} could not be fetched (${(err.cause as Error | undefined)?.message ?? err.message})`);
    throw err;
  }
}

function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname === '[::1]' || url.hostname.startsWith('127.'));
}

/** The keys of one issuer, with the bounded refresh described at the top. */
export class IssuerKeys {
  private local: LocalSet | undefined;
  private fetchedAt = -Infinity;
  private attemptedAt = -Infinity;
  private lastFailure: string | undefined;
  private inflight: Promise<void> | undefined;
  /** Key-set fetches started (discovery included in the same attempt); read by tests and logs. */
  fetches = 0;

  constructor(
    private readonly source: KeySource,
    private readonly now: () => number,
    private readonly onFailure: (issuer: string, reason: string) => void,
  ) {}

  /** The jose key resolver: the issuer's key for this JWS header, fetching the set when allowed and needed. */
  async keyFor(header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<KeyOf> {
    if (!this.local) await this.refreshOrExplain();
    try {
      const key = await this.local!(header, token);
      if (this.now() - this.fetchedAt >= MAX_KEYS_AGE_MS && this.mayFetch()) this.refresh().catch(() => undefined);
      return key;
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey)) throw err;
      // RFC 7517 / OIDC Core 10.1.1: a kid the set lacks may be a rotated key: fetch again, within the bound.
      if (this.inflight || this.mayFetch()) {
        await this.refreshOrExplain();
        return this.local!(header, token);
      }
      if (this.lastFailure !== undefined) throw this.unavailable();
      throw err;
    }
  }

  /** How long ago the keys were fetched, for messages. */
  ageMs(): number {
    return this.now() - this.fetchedAt;
  }

  private mayFetch(): boolean {
    return this.now() - this.attemptedAt >= MIN_REFRESH_MS;
  }

  private unavailable(): KeysUnavailable {
    const retryAfterMs = Math.max(0, this.attemptedAt + MIN_REFRESH_MS - this.now());
    // The reason (an address, a status) goes to the operator's log through onFailure, not to the caller.
    return new KeysUnavailable(`The signing keys of the issuer ${JSON.stringify(this.source.issuer)} could not be fetched`, retryAfterMs);
  }

  /** Joins a fetch under way, else starts one when allowed; throws KeysUnavailable when no fresh set came of it. */
  private async refreshOrExplain(): Promise<void> {
    if (!this.inflight && !this.mayFetch()) throw this.unavailable();
    try {
      await this.refresh();
    } catch {
      throw this.unavailable();
    }
  }

  private refresh(): Promise<void> {
    this.inflight ??= (async () => {
      this.attemptedAt = this.now();
      this.fetches++;
      try {
        const set = await this.fetchSet();
        this.local = createLocalJWKSet(set);
        this.fetchedAt = this.now();
        this.lastFailure = undefined;
      } catch (err) {
        this.lastFailure = (err as Error).message;
        this.onFailure(this.source.issuer, this.lastFailure);
        throw err;
      } finally {
        this.inflight = undefined;
      }
    })();
    return this.inflight;
  }

  private async fetchSet(): Promise<JSONWebKeySet> {
    const { issuer, jwksTimeoutMs } = this.source;
    let jwksUri = this.source.jwksUri;
    if (jwksUri === undefined) {
      const doc = (await fetchJson(discoveryUrlOf(issuer), jwksTimeoutMs)) as Record<string, unknown> | null;
      // OIDC Discovery 4.3: the document's issuer must be exactly the one configured.
      if (typeof doc !== 'object' || doc === null || doc.issuer !== issuer) {
        throw new Error(
          `the discovery document of ${issuer} names another issuer (${JSON.stringify((doc as { issuer?: unknown })?.issuer)})`,
        );
      }
      if (typeof doc.jwks_uri !== 'string') throw new Error(`the discovery document of ${issuer} has no jwks_uri`);
      const url = new URL(doc.jwks_uri);
      if (url.protocol !== 'https:' && !isLoopbackHttp(url)) throw new Error(`the jwks_uri of ${issuer} is not https`);
      jwksUri = url.href;
    }
    const set = (await fetchJson(jwksUri, jwksTimeoutMs)) as { keys?: unknown } | null;
    if (typeof set !== 'object' || set === null || !Array.isArray(set.keys)) throw new Error(`${jwksUri} is not a JSON Web Key Set`);
    // A shared secret has no place in a published set; drop one rather than ever verify with it.
    const keys = set.keys.filter((k) => typeof k === 'object' && k !== null && (k as { kty?: unknown }).kty !== 'oct');
    return { keys } as JSONWebKeySet;
  }
}
