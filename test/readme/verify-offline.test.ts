// docs/guides/verify-offline.md: the script there, run exactly as printed against a real service's
// JWKS, says valid for a real Verdict (with non-ASCII text and several kinds of numbers in it), and
// invalid_signature when one number of it changes.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { liveVerdict, type SignedEntry } from './live-verdict.ts';

const root = path.resolve(import.meta.dirname, '../..');
// Inside the repository, so the script's `import 'jose'` resolves from node_modules as it would for a user.
const dir = path.join(root, 'test-artifacts', 'readme');
const script = path.join(dir, 'verify-verdict.mjs');

/** The js block the guide says to save as verify-verdict.mjs, byte for byte. */
function recipe(): string {
  const guide = fs.readFileSync(path.join(root, 'docs', 'guides', 'verify-offline.md'), 'utf8');
  const block = /```js\n(\/\/ verify-verdict\.mjs[\s\S]*?)```/.exec(guide);
  if (!block) throw new Error('docs/guides/verify-offline.md has no js block starting "// verify-verdict.mjs"');
  return block[1];
}

let svc: TestService;
let entry: SignedEntry;

function runRecipe(input: unknown): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, svc.url], { cwd: dir });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', () => resolve(out.trim()));
    child.stdin.end(JSON.stringify(input));
  });
}

beforeAll(async () => {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(script, recipe());
  svc = await startTestService();
  entry = await liveVerdict(svc, 'yesno');
});
afterAll(() => svc?.close());

describe('the offline verification recipe of docs/guides/verify-offline.md', () => {
  it('says valid for a Verdict exactly as the service gave it', async () => {
    expect(JSON.stringify(entry.verdict)).toMatch(/[^\x00-\x7f]/); // non-ASCII text is in it
    expect(await runRecipe(entry)).toBe('valid');
  });

  it('says invalid_signature when one chance in it changes', async () => {
    const tampered = structuredClone(entry);
    tampered.verdict.cases[0].p = tampered.verdict.cases[0].p === 0.5 ? 0.51 : 0.5;
    expect(await runRecipe(tampered)).toBe('invalid_signature');
  });

  it('says unknown_key for a kid the service never published', async () => {
    expect(await runRecipe({ ...entry, signature: { ...entry.signature, kid: 'nobody' } })).toBe('unknown_key');
  });
});
