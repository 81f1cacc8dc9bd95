// GET /.well-known/jwks.json (docs/reference/verdicts.md): public Ed25519 keys only, one per kid in the ring.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, startTestService, type TestService } from './helpers.ts';

let svc: TestService;
let dataDir: string;
beforeAll(async () => {
  // An explicit dataDir outlives a restart (the helper removes only directories it made).
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'jwks-test-'));
  svc = await startTestService({ dataDir });
});
afterAll(async () => {
  await svc?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it('serves the public keys only: kty, crv, kid, use, alg and x, never d', async () => {
  const r = await call(svc.url, '/.well-known/jwks.json', undefined, { method: 'GET' });
  expect(r.res.status).toBe(200);
  expect(r.res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(r.json.keys.length).toBeGreaterThanOrEqual(1);
  for (const k of r.json.keys) {
    expect(Object.keys(k).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
    expect(k).toMatchObject({ kty: 'OKP', crv: 'Ed25519', use: 'sig', alg: 'EdDSA' });
  }
  expect(r.json.keys.map((k: { kid: string }) => k.kid)).toContain(svc.services.keyRing.activeKid);
  expect(JSON.stringify(r.json)).not.toContain('"d"');
});

it('keeps a rotated-out key published so older Verdicts still verify offline', async () => {
  const old = svc.services.keyRing.activeKid;
  const next = await svc.services.keyRing.rotate();
  const r = await call(svc.url, '/.well-known/jwks.json', undefined, { method: 'GET' });
  const kids = r.json.keys.map((k: { kid: string }) => k.kid);
  expect(kids).toEqual(expect.arrayContaining([old, next]));
});

it('the signing keys persist in the store across restarts', async () => {
  const kids = svc.services.keyRing
    .jwks()
    .keys.map((k) => k.kid)
    .sort();
  await svc.close();
  svc = await startTestService({ dataDir });
  expect(
    svc.services.keyRing
      .jwks()
      .keys.map((k) => k.kid)
      .sort(),
  ).toEqual(kids);
});

it('GET /healthz answers ok', async () => {
  const r = await call(svc.url, '/healthz', undefined, { method: 'GET' });
  expect(r.res.status).toBe(200);
  expect(r.json.status).toBe('ok');
});
