// A real OAuth issuer on loopback for tests: node:http serving an OpenID discovery document and a JWKS,
// with keys made and tokens signed by jose; it counts what it is asked and can go down or hang.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

export type IssuerMode = 'up' | 'reset' | 'hang' | 'error';

export interface IssuerKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
  /** The public key as PEM text (what an HS256-with-the-public-key attack signs with). */
  publicPem: string;
}

export interface MintOptions {
  /** Which key signs (default: the first published). */
  key?: IssuerKey;
  /** The kid header sent (default the key's; null for none). */
  kid?: string | null;
  typ?: string;
}

export interface TestIssuer {
  /** The issuer identifier (`iss`), with a path as Keycloak realms have. */
  issuer: string;
  origin: string;
  jwksUri: string;
  /** Requests per path so far. */
  hits: { discovery: number; jwks: number };
  /** 'reset' drops the connection, 'hang' never answers, 'error' answers 500. */
  mode: IssuerMode;
  /** Published keys, in order. */
  published: IssuerKey[];
  newKey(alg?: 'RS256' | 'ES256' | 'EdDSA' | 'PS256'): Promise<IssuerKey>;
  /** A token of this issuer: iss is set, the rest as given (nothing is defaulted, so a test can leave any claim out). */
  mint(claims: JWTPayload, opts?: MintOptions): Promise<string>;
  close(): Promise<void>;
}

let kidCounter = 0;

export async function startIssuer(realm = 'test'): Promise<TestIssuer> {
  const hung: http.ServerResponse[] = [];
  const state = { mode: 'up' as IssuerMode };
  const hits = { discovery: 0, jwks: 0 };
  const published: IssuerKey[] = [];
  let issuer = '';
  let jwksUri = '';
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === `/realms/${realm}/.well-known/openid-configuration`) hits.discovery++;
    else if (path === `/realms/${realm}/protocol/openid-connect/certs`) hits.jwks++;
    if (state.mode === 'reset') return req.socket.destroy();
    if (state.mode === 'hang') return void hung.push(res);
    if (state.mode === 'error') return res.writeHead(500).end('down');
    const send = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (path === `/realms/${realm}/.well-known/openid-configuration`) {
      return send({ issuer, jwks_uri: jwksUri, id_token_signing_alg_values_supported: ['RS256', 'ES256'] });
    }
    if (path === `/realms/${realm}/protocol/openid-connect/certs`) return send({ keys: published.map((k) => k.publicJwk) });
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  issuer = `${origin}/realms/${realm}`;
  jwksUri = `${issuer}/protocol/openid-connect/certs`;

  const self: TestIssuer = {
    issuer,
    origin,
    jwksUri,
    hits,
    get mode() {
      return state.mode;
    },
    set mode(m: IssuerMode) {
      state.mode = m;
      if (m !== 'hang') for (const res of hung.splice(0)) res.destroy();
    },
    published,
    async newKey(alg = 'RS256') {
      const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
      const kid = `k${++kidCounter}-${alg.toLowerCase()}`;
      const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
      return { kid, alg, privateKey, publicJwk, publicPem: await exportSPKI(publicKey) };
    },
    async mint(claims, opts = {}) {
      const key = opts.key ?? published[0];
      const header: Record<string, unknown> = { alg: key.alg, ...(opts.typ ? { typ: opts.typ } : {}) };
      const kid = opts.kid === undefined ? key.kid : opts.kid;
      if (kid !== null) header.kid = kid;
      return new SignJWT({ iss: issuer, ...claims }).setProtectedHeader(header as { alg: string }).sign(key.privateKey);
    },
    async close() {
      for (const res of hung.splice(0)) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  published.push(await self.newKey());
  return self;
}

/** Seconds since the epoch of a test clock's ms. */
export const secondsOf = (ms: number) => Math.floor(ms / 1000);

/** A token nobody signed: header {"alg":"none"} and an empty signature (RFC 7519 6.1). */
export function unsignedToken(claims: JWTPayload): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}
