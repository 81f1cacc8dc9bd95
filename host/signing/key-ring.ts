// Ed25519 key ring for Verdict signatures (docs/reference/verdicts.md): one active key, retired keys still published.
import { createPrivateKey, type JsonWebKey as NodeJwk, type KeyObject, sign as signSync } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';

/** One key as persisted; the JWKs are JSON text so any store can keep them as strings. */
export interface StoredSigningKey {
  kid: string;
  private_jwk: string;
  public_jwk: string;
  created_at: string;
  retired_at: string | null;
}

/** Persistence for the ring; saveKey inserts or replaces by kid. */
export interface SigningKeyStore {
  loadKeys(): Promise<StoredSigningKey[]>;
  saveKey(k: StoredSigningKey): Promise<void>;
  /** Saves `k` as the active key only if there is none (one winner among nodes starting together). */
  insertFirstKey(k: StoredSigningKey): Promise<boolean>;
}

/** A published key, as in GET /.well-known/jwks.json. */
export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  kid: string;
  use: 'sig';
  alg: 'EdDSA';
  x: string;
}

export interface Jwks {
  keys: PublicJwk[];
}

export interface KeyRingOptions {
  /** Clock for created_at / retired_at; defaults to Date.now. */
  now?: () => number;
  /** Least time between two reloads for unknown kids (default 1000 ms): made-up kids cannot hammer the store. */
  reloadSpacingMs?: number;
}

const RELOAD_SPACING_MS = 1000;

interface LoadedKey {
  stored: StoredSigningKey;
  x: string;
  privateKey: CryptoKey;
  /** The same private key for node:crypto's synchronous sign (see KeyRing.sign). */
  privateKeyObject: KeyObject;
  publicKey: CryptoKey;
}

export class KeyRing {
  /** The next reload, not begun yet: callers that need one join it; null when none is waiting. */
  private nextReload: Promise<void> | null = null;
  private lastReloadAt = 0;
  private refreshTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly store: SigningKeyStore,
    private readonly keys: Map<string, LoadedKey>,
    private active: LoadedKey,
    private readonly now: () => number,
    private readonly reloadSpacingMs: number,
  ) {}

  /** Loads every stored key; creates and saves the first key when there is no unretired one. */
  static async open(store: SigningKeyStore, opts: KeyRingOptions = {}): Promise<KeyRing> {
    const now = opts.now ?? Date.now;
    const keys = new Map<string, LoadedKey>();
    for (const stored of await store.loadKeys()) keys.set(stored.kid, await loadKey(stored));
    // Newest unretired key is active; two unretired keys can exist if a rotation was interrupted.
    let active: LoadedKey | undefined;
    for (const k of keys.values()) {
      if (k.stored.retired_at !== null) continue;
      if (!active || k.stored.created_at > active.stored.created_at) active = k;
    }
    if (!active) {
      // Nodes starting together on an empty store each make a key; only one is kept, and the others
      // load it, so every node signs with and publishes the same key (docs/design/architecture.md#postgresql).
      const made = await createKey(now);
      if (await store.insertFirstKey(made.stored)) {
        active = made;
        keys.set(made.stored.kid, made);
      } else {
        return KeyRing.open(store, opts);
      }
    }
    return new KeyRing(store, keys, active, now, opts.reloadSpacingMs ?? RELOAD_SPACING_MS);
  }

  /**
   * Reads the keys again: a key another node (or `npm run keys -- rotate-signing-key`) added becomes the
   * active one here too, and keys retired elsewhere are retired here.
   */
  async reload(): Promise<void> {
    this.lastReloadAt = Date.now();
    let newest: LoadedKey | undefined;
    for (const stored of await this.store.loadKeys()) {
      let k = this.keys.get(stored.kid);
      if (!k) {
        k = await loadKey(stored);
        this.keys.set(stored.kid, k);
      }
      k.stored = stored;
      if (stored.retired_at === null && (!newest || stored.created_at > newest.stored.created_at)) newest = k;
    }
    // No unretired key in the store (an operator retired them all): keep signing with the one we have.
    if (newest) this.active = newest;
  }

  /**
   * The public key for `kid`; a kid this ring does not hold makes it reload first (a key rotated on another
   * node verifies here at once). Reloads start at least reloadSpacingMs apart, and callers waiting at once
   * share the next one, so a flood of made-up kids costs the store one read per spacing.
   */
  async findPublicKey(kid: string): Promise<CryptoKey | undefined> {
    const known = this.keys.get(kid);
    if (known) return known.publicKey;
    await this.reloadSoon();
    return this.keys.get(kid)?.publicKey;
  }

  /** A reload that begins after this call (never one already under way, which may predate the key sought). */
  private reloadSoon(): Promise<void> {
    this.nextReload ??= new Promise<void>((resolve, reject) => {
      const wait = Math.max(0, this.lastReloadAt + this.reloadSpacingMs - Date.now());
      setTimeout(() => {
        this.nextReload = null;
        this.reload().then(resolve, reject);
      }, wait).unref();
    });
    return this.nextReload;
  }

  /** Reloads every `everyMs` (until stopRefresh), so a rotation elsewhere is signed with here within that time. */
  startRefresh(everyMs: number, onError: (err: unknown) => void): void {
    this.stopRefresh();
    this.refreshTimer = setInterval(() => void this.reload().catch(onError), everyMs);
    this.refreshTimer.unref();
  }

  stopRefresh(): void {
    clearInterval(this.refreshTimer);
    this.refreshTimer = undefined;
  }

  get activeKid(): string {
    return this.active.stored.kid;
  }

  /** Raw Ed25519 signature (64 bytes) of `bytes` with the active key. */
  async sign(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
    // Ed25519 signatures are deterministic (RFC 8032), so this gives the bytes crypto.subtle.sign('Ed25519',
    // privateKey, bytes) gives (test/signing holds the two equal). Signing in place takes about 0.05 ms; the
    // WebCrypto call queued a job on libuv's pool and cost a cached ask about 0.3 ms of the request thread's time.
    const signature = signSync(null, bytes, this.active.privateKeyObject);
    return new Uint8Array(signature.buffer.slice(signature.byteOffset, signature.byteOffset + signature.byteLength));
  }

  /** The public key for `kid`, retired or not, as this ring holds it now (findPublicKey reloads for an unknown kid). */
  publicKey(kid: string): CryptoKey | undefined {
    return this.keys.get(kid)?.publicKey;
  }

  /** Every key the ring holds, retired ones included so older Verdicts still verify offline. */
  jwks(): Jwks {
    return {
      keys: [...this.keys.values()].map((k) => ({
        kty: 'OKP',
        crv: 'Ed25519',
        kid: k.stored.kid,
        use: 'sig',
        alg: 'EdDSA',
        x: k.x,
      })),
    };
  }

  /** Makes a new active key and retires the old one; the new key is saved first so a crash loses nothing. */
  async rotate(): Promise<string> {
    const next = await createKey(this.now);
    await this.store.saveKey(next.stored);
    this.keys.set(next.stored.kid, next);
    const old = this.active;
    old.stored = { ...old.stored, retired_at: new Date(this.now()).toISOString() };
    await this.store.saveKey(old.stored);
    this.active = next;
    return next.stored.kid;
  }
}

/** kid = RFC 7638 JWK thumbprint (SHA-256, base64url) of the public key, so anyone can recompute it. */
async function createKey(now: () => number): Promise<LoadedKey> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const privateJwk = await exportJWK(privateKey);
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
  const stored: StoredSigningKey = {
    kid,
    private_jwk: JSON.stringify(privateJwk),
    public_jwk: JSON.stringify(publicJwk),
    created_at: new Date(now()).toISOString(),
    retired_at: null,
  };
  return loadKey(stored);
}

async function loadKey(stored: StoredSigningKey): Promise<LoadedKey> {
  const privateJwk = JSON.parse(stored.private_jwk) as JWK;
  const publicJwk = JSON.parse(stored.public_jwk) as JWK;
  if (publicJwk.kty !== 'OKP' || publicJwk.crv !== 'Ed25519' || typeof publicJwk.x !== 'string') {
    throw new Error(`signing key ${stored.kid} is not an Ed25519 key`);
  }
  const privateKey = (await importJWK(privateJwk, 'EdDSA')) as CryptoKey;
  const publicKey = (await importJWK(publicJwk, 'EdDSA')) as CryptoKey;
  return {
    stored,
    x: publicJwk.x,
    privateKey,
    privateKeyObject: createPrivateKey({ key: privateJwk as NodeJwk, format: 'jwk' }),
    publicKey,
  };
}

/** In-memory store for tests and single-process use; keeps copies so callers cannot mutate it. */
export class MemorySigningKeyStore implements SigningKeyStore {
  private readonly rows = new Map<string, StoredSigningKey>();

  async loadKeys(): Promise<StoredSigningKey[]> {
    return [...this.rows.values()].map((k) => ({ ...k }));
  }

  async saveKey(k: StoredSigningKey): Promise<void> {
    this.rows.set(k.kid, { ...k });
  }

  async insertFirstKey(k: StoredSigningKey): Promise<boolean> {
    if ([...this.rows.values()].some((r) => r.retired_at === null)) return false;
    this.rows.set(k.kid, { ...k });
    return true;
  }
}
