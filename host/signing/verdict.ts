// Signs and verifies Verdicts as detached RFC 7797 JWS over canonical JSON (docs/reference/verdicts.md, docs/reference/verdicts.md#verify).
import { importJWK } from 'jose';
import { canonicalJson, canonicalObjectPieces } from './canonical-json.ts';
import { KeyRing, type Jwks } from './key-ring.ts';

export interface VerdictSignature {
  protected: string;
  signature: string;
  kid: string;
}

export type VerifyStatus = 'valid' | 'invalid_signature' | 'expired' | 'unknown_key';

/**
 * Bytes an RFC 7797 (b64:false) signature covers: ASCII(protected) '.' canonical JSON (given whole or
 * in pieces). Both parts are printable ASCII by construction (base64url; canonical JSON escapes
 * everything else, test/signing canonical-json "writes only printable ASCII"), so their Latin-1 bytes
 * are their UTF-8 bytes: written straight into one buffer, without joining megabytes of text first or
 * running a UTF-8 encoder over it. The readable equivalent:
 * new TextEncoder().encode(protectedB64 + '.' + [canonical].flat().join('')).
 */
function signingInput(protectedB64: string, canonical: string | readonly string[]): Uint8Array<ArrayBuffer> {
  const pieces = typeof canonical === 'string' ? [canonical] : canonical;
  let size = protectedB64.length + 1;
  for (let i = 0; i < pieces.length; i++) size += pieces[i].length;
  // every byte is written below, so the buffer need not be zeroed first
  const buf = Buffer.allocUnsafeSlow(size);
  let at = buf.write(protectedB64, 0, 'latin1');
  buf[at++] = 0x2e; // '.'
  for (let i = 0; i < pieces.length; i++) at += buf.write(pieces[i], at, 'latin1');
  if (at !== size) throw new Error('signingInput: the bytes are not the size they were measured');
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

// The canonical text each Verdict signed here was signed over (in pieces, see canonicalObjectPieces),
// and the text of each array in it (its cases): the Verdict is frozen all the way down when signed,
// so the text stays true of it.
const signedTexts = new WeakMap<object, string | readonly string[]>();

/**
 * The exact canonical JSON a signature from signVerdict covers (for a Verdict) or that it holds
 * (for an array of a signed Verdict, such as its cases), for writing it into a reply without
 * serialising it again; undefined for objects this process did not sign.
 */
export function signedTextOf(signed: object): string | undefined {
  const text = signedTexts.get(signed);
  return text === undefined || typeof text === 'string' ? text : text.join('');
}

/** signedTextOf in pieces whose concatenation is that text (a Verdict's are its values' texts, so they are not copied again). */
export function signedPiecesOf(signed: object): readonly string[] | undefined {
  const text = signedTexts.get(signed);
  return text === undefined ? undefined : typeof text === 'string' ? [text] : text;
}

/**
 * Freezes plain objects and arrays all the way down, stopping at parts already frozen (which are so
 * all the way down: the scorer's interned reasons and the model's bin ranges). Loops over indexes and
 * keys rather than Object.values, which made an array per object: a 10,000-case Verdict has some
 * 20,000 objects and arrays to freeze.
 */
function deepFreeze(v: object): void {
  if (Object.isFrozen(v)) return;
  Object.freeze(v);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      if (typeof item === 'object' && item !== null) deepFreeze(item);
    }
    return;
  }
  const rec = v as Record<string, unknown>;
  for (const k in rec) {
    const item = rec[k];
    if (typeof item === 'object' && item !== null) deepFreeze(item);
  }
}

/** Signs `verdict` with the ring's active key; the verdict is returned, frozen, beside its signature. */
export async function signVerdict<V extends object>(ring: KeyRing, verdict: V): Promise<{ verdict: V; signature: VerdictSignature }> {
  const kid = ring.activeKid;
  // docs/reference/auth.md fixes this key order; JSON.stringify keeps insertion order.
  const header = { alg: 'EdDSA', b64: false, crit: ['b64'], kid, typ: 'verdict+json' };
  const protectedB64 = Buffer.from(JSON.stringify(header), 'utf8').toString('base64url');
  const canonical = canonicalObjectPieces(verdict as Record<string, unknown>, (value, text) => {
    if (Array.isArray(value)) signedTexts.set(value, text);
  });
  Object.freeze(canonical);
  const signing = ring.sign(signingInput(protectedB64, canonical));
  // What is signed (and its parts' texts, kept above) can no longer change once frozen. Frozen after
  // the text is written and the signature started, while the signature is worked out off this thread:
  // nothing else runs on this thread in between (no await), so this is the same as freezing first
  // (the readable order: deepFreeze; canonical text; sign), and the ~20,000 objects of a 10,000-case
  // Verdict are frozen in time the reply would otherwise wait idle.
  try {
    deepFreeze(verdict);
  } catch (err) {
    signing.catch(() => undefined); // not left unhandled: the error thrown here is the one that matters
    throw err;
  }
  const sig = await signing;
  signedTexts.set(verdict, canonical);
  return { verdict, signature: { protected: protectedB64, signature: Buffer.from(sig).toString('base64url'), kid } };
}

// Bounds keep garbage cheap to reject; a real header is ~150 chars and an Ed25519 signature 86.
const MAX_PROTECTED = 2048;
const B64URL = /^[A-Za-z0-9_-]*$/;

function decodeB64url(s: string): Uint8Array<ArrayBuffer> | undefined {
  if (!B64URL.test(s) || s.length % 4 === 1) return undefined;
  const bytes = Buffer.from(s, 'base64url');
  // Reject non-canonical encodings (stray trailing bits) so one signature has one spelling.
  return bytes.toString('base64url') === s ? new Uint8Array(bytes) : undefined;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parses the protected header; undefined unless it is EdDSA with b64:false and only b64 is critical. */
function parseHeader(protectedB64: string): { kid: string } | undefined {
  if (protectedB64.length > MAX_PROTECTED) return undefined;
  const bytes = decodeB64url(protectedB64);
  if (!bytes) return undefined;
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
  if (!isPlainObject(header)) return undefined;
  const { alg, b64, crit, kid } = header;
  if (alg !== 'EdDSA' || b64 !== false || typeof kid !== 'string') return undefined;
  // RFC 7515 4.1.11: every critical parameter must be understood; we understand only b64.
  if (!Array.isArray(crit) || !crit.includes('b64') || crit.some((c) => c !== 'b64')) return undefined;
  return { kid };
}

async function findKey(keys: KeyRing | Jwks, kid: string): Promise<CryptoKey | undefined> {
  if (keys instanceof KeyRing) return keys.findPublicKey(kid);
  if (!isPlainObject(keys) || !Array.isArray(keys.keys)) return undefined;
  const jwk = keys.keys.find((k) => isPlainObject(k) && k.kid === kid);
  if (!jwk || jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') return undefined;
  try {
    return (await importJWK({ kty: 'OKP', crv: 'Ed25519', x: jwk.x }, 'EdDSA')) as CryptoKey;
  } catch {
    return undefined;
  }
}

/**
 * docs/reference/verdicts.md order: malformed -> invalid_signature; unknown kid -> unknown_key; bad signature ->
 * invalid_signature; now >= expires_at -> expired (a backtest Verdict, expires_at null, never does); else valid.
 * Never throws on caller input.
 */
export async function verifyVerdict(
  keys: KeyRing | Jwks,
  verdict: unknown,
  signature: unknown,
  now: number = Date.now(),
): Promise<VerifyStatus> {
  let kid: string;
  let protectedB64: string;
  let sigB64: string;
  try {
    if (!isPlainObject(verdict) || !isPlainObject(signature)) return 'invalid_signature';
    const given = signature;
    if (typeof given.protected !== 'string' || typeof given.signature !== 'string' || typeof given.kid !== 'string') {
      return 'invalid_signature';
    }
    ({ protected: protectedB64, signature: sigB64, kid } = given as { protected: string; signature: string; kid: string });
    const header = parseHeader(protectedB64);
    if (!header || header.kid !== kid) return 'invalid_signature';
  } catch {
    return 'invalid_signature';
  }
  // Outside the catch-all: a key ring that cannot reach its store (reloading for an unknown kid) is the
  // service's failure, answered as such, never a verdict on the caller's signature.
  const key = await findKey(keys, kid);
  if (!key) return 'unknown_key';
  try {
    const sig = sigB64.length === 86 ? decodeB64url(sigB64) : undefined;
    if (!sig || sig.length !== 64) return 'invalid_signature';
    let input: Uint8Array<ArrayBuffer>;
    try {
      input = signingInput(protectedB64, canonicalJson(verdict));
    } catch {
      return 'invalid_signature'; // not canonicalisable (NaN, cycles, ...), so never signed by us
    }
    if (!(await crypto.subtle.verify('Ed25519', key, sig, input))) return 'invalid_signature';
    const v = verdict as Record<string, unknown>;
    // docs/reference/map.md#backtest, docs/reference/README.md: a backtest Verdict never expires (signed with expires_at null)
    if (v.kind === 'backtest' && v.expires_at === null) return 'valid';
    const expiresAt = typeof v.expires_at === 'string' ? Date.parse(v.expires_at) : NaN;
    if (Number.isNaN(expiresAt)) return 'invalid_signature';
    return now >= expiresAt ? 'expired' : 'valid';
  } catch {
    return 'invalid_signature';
  }
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Crypto randomness drawn 4 KiB at a time and handed out 16 bytes a Verdict, each byte once (one draw per 256 ids). */
const RANDOM_POOL = new Uint8Array(4096);
let randomAt = RANDOM_POOL.length;
function randomBytes16(): Uint8Array {
  if (randomAt + 16 > RANDOM_POOL.length) {
    crypto.getRandomValues(RANDOM_POOL);
    randomAt = 0;
  }
  randomAt += 16;
  return RANDOM_POOL.subarray(randomAt - 16, randomAt);
}

/** ULID: 10 chars of millisecond time then 16 chars (80 bits) of crypto randomness, Crockford base32. */
export function newVerdictId(now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const random = randomBytes16();
  // 16 bytes give 16 chars of 5 bits each (the top 3 bits of each byte are dropped): 80 random bits.
  let rand = '';
  for (const b of random) rand += CROCKFORD[b & 31];
  return time + rand;
}
