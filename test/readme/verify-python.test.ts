// docs/guides/verify-offline.md#python: the Python recipe there, run exactly as printed with Debian's python3
// and python3-cryptography, says valid for a live Verdict (non-ASCII text and several kinds of numbers in it),
// with the keys fetched from the service or read from a saved JWKS, and invalid_signature or unknown_key
// when the Verdict or its key id is changed.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, tempDir, type TestService } from '../helpers/service.ts';
import { liveVerdict, type SignedEntry } from './live-verdict.ts';

const root = path.resolve(import.meta.dirname, '../..');
const dir = tempDir('oq-python-');
const script = path.join(dir, 'verify_verdict.py');
const jwksFile = path.join(dir, 'jwks.json');

/** The python block the guide says to save as verify_verdict.py, byte for byte. */
function recipe(): string {
  const guide = fs.readFileSync(path.join(root, 'docs', 'guides', 'verify-offline.md'), 'utf8');
  const block = /```python\n(# verify_verdict\.py[\s\S]*?)```/.exec(guide);
  if (!block) throw new Error('docs/guides/verify-offline.md has no python block starting "# verify_verdict.py"');
  return block[1];
}

let svc: TestService;
let entry: SignedEntry;

function runRecipe(input: unknown, where: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [script, where], { cwd: dir });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out: out.trim(), err }));
    child.stdin.end(JSON.stringify(input));
  });
}

beforeAll(async () => {
  fs.writeFileSync(script, recipe());
  svc = await startTestService();
  entry = await liveVerdict(svc, 'score');
  fs.writeFileSync(jwksFile, await (await fetch(`${svc.url}/.well-known/jwks.json`)).text());
}, 120_000);
afterAll(async () => {
  await svc?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the Python recipe of docs/guides/verify-offline.md', () => {
  it('python3 and python3-cryptography are there (Debian packages; .ci/run installs them)', async () => {
    const r = await new Promise<number | null>((resolve) =>
      spawn('python3', ['-c', 'import cryptography'])
        .on('close', resolve)
        .on('error', () => resolve(-1)),
    );
    expect(r, 'apt-get install -y python3 python3-cryptography').toBe(0);
  });

  it('says valid for a live Verdict, with the keys from the service or from a saved JWKS', async () => {
    expect(JSON.stringify(entry.verdict)).toMatch(/[^\x00-\x7f]/); // non-ASCII text is in it
    const online = await runRecipe(entry, svc.url);
    expect(online.out, online.err).toBe('valid');
    expect(online.code).toBe(0);
    const offline = await runRecipe(entry, jwksFile);
    expect(offline.out, offline.err).toBe('valid');
  });

  it('says invalid_signature when one chance changes, unknown_key for a kid never published', async () => {
    const tampered = structuredClone(entry);
    tampered.verdict.cases[0].p = tampered.verdict.cases[0].p === 0.5 ? 0.51 : 0.5;
    const bad = await runRecipe(tampered, jwksFile);
    expect(bad.out, bad.err).toBe('invalid_signature');
    expect(bad.code).toBe(1);
    const unknown = await runRecipe({ ...entry, signature: { ...entry.signature, kid: 'nobody' } }, jwksFile);
    expect(unknown.out, unknown.err).toBe('unknown_key');
  });
});
