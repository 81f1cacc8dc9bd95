// Path and body tokens as an attacker sends them (docs/decisions/0012-signed-links.md): the signed tokens of
// each kind (export link, page cursor, watch link, upload link, lever token), real ones for two workspaces,
// with every character flipped, cut at every length, extended, and swapped between kinds and between
// workspaces. Never a 5xx, never a success for a token that was changed, and never a byte of the other
// workspace's data. The flips are seeded (FUZZ_SEED).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { answerLink, cursorOf, storeAnswerText } from '../../host/runtime/stored-answers.ts';
import { watchUrlOf } from '../../host/signing/watch-token.ts';
import { signLeverToken } from '../../host/signing/lever-token.ts';
import { OPERATIONS } from '../../host/operations/index.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 36);
type Kind = 'export' | 'cursor' | 'watch' | 'upload' | 'lever';
const KINDS: Kind[] = ['export', 'cursor', 'watch', 'upload', 'lever'];
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

interface Workspace {
  key: string;
  id: string;
  secret: string;
  tokens: Record<Kind, string>;
}
let svc: TestService;
let a: Workspace;
let b: Workspace;
const attestExample = OPERATIONS.find((op) => op.name === 'svc_attest')!.examples[0].value as Record<string, unknown>;

async function workspace(name: string): Promise<Workspace> {
  const { key, workspaceId: id } = await svc.liveCaller(name, true);
  const secret = `SECRET-${name}-${id}`;
  const ctx = svc.ctx(id);
  const answer = {
    status: 'done',
    answers: { q: { type: 'yesno', state: 'answered', model_ref: 'mr_x', cases: [{ id: secret, chance: 0.5 }] } },
  };
  const ref = await storeAnswerText(ctx, JSON.stringify(answer));
  const taskId = `tk_${name.padEnd(26, '0').slice(0, 26)}`;
  await svc.services.store.createTask({
    id: taskId,
    workspace_id: id,
    request: '{}',
    created_at: Date.now(),
    lease: { owner: 'elsewhere', lease_until: Date.now() + 3_600_000 },
    events: [{ kind: 'stage', data: JSON.stringify({ task_id: taskId, stage: 'reading_data', step: secret }), at: Date.now() }],
  });
  const upload = await svc.post('/v1/add-dataset', { upload: true, filename: `${name}.csv` }, key);
  expect(upload.status, JSON.stringify(upload.body)).toBeLessThan(300);
  const last = (url: string) => url.split('/').pop()!;
  return {
    key,
    id,
    secret,
    tokens: {
      export: last(answerLink(svc.services, id, ref)),
      cursor: cursorOf(svc.services, id, ref, 0),
      watch: last(watchUrlOf(svc.services, taskId, id, Date.now())),
      upload: last(upload.body.upload_url),
      lever: signLeverToken(svc.services.secrets, { modelRef: 'mr_x', entityId: secret, feature: 'f', bin: 0, direction: 'increase' }),
    },
  };
}

beforeAll(async () => {
  svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
  a = await workspace('alpha');
  b = await workspace('beta');
});
const replies: Record<number, number> = {};
afterAll(async () => {
  const sent = Object.values(replies).reduce((x, y) => x + y, 0);
  console.log(`${sent} requests with tokens, replies ${JSON.stringify(replies)}`);
  await svc?.close();
});

/** `token` used where a token of `kind` goes, with workspace `as`'s key where the route takes one. */
async function use(kind: Kind, token: string, as: Workspace): Promise<{ status: number; text: string; what: string }> {
  const t = encodeURIComponent(token);
  const auth = { authorization: `Bearer ${as.key}`, 'content-type': 'application/json' };
  const [method, path, headers, body] =
    kind === 'export'
      ? ['GET', `/v1/exports/${t}`, {}, undefined]
      : kind === 'watch'
        ? ['GET', `/v1/watch/${t}`, {}, undefined]
        : kind === 'upload'
          ? [
              'POST',
              `/v1/uploads/${t}/complete`,
              { 'content-type': 'application/json', 'x-upload-session': 'a'.repeat(32) },
              '{"pieces":1}',
            ]
          : kind === 'cursor'
            ? ['POST', '/v1/page', auth, JSON.stringify({ cursor: token })]
            : ['POST', '/v1/attest', auth, JSON.stringify({ ...attestExample, lever_token: token })];
  const res = await fetch(svc.url + path, { method, headers, body });
  const text = await res.text();
  replies[res.status] = (replies[res.status] ?? 0) + 1;
  return { status: res.status, text, what: `${kind} ${method} ${path.slice(0, 80)} -> ${res.status} ${text.slice(0, 200)}` };
}

/** A token that decodes to the same bytes as `original` (a flip in the unused low bits of a base64url tail). */
function sameBytes(token: string, original: string): boolean {
  const parts = (s: string) => s.split('.');
  const [p1, s1] = parts(token);
  const [p0, s0] = parts(original);
  return (
    p1 === p0 &&
    s1 !== undefined &&
    s0 !== undefined &&
    Buffer.from(s1, 'base64url').equals(Buffer.from(s0, 'base64url')) &&
    /^[A-Za-z0-9_-]+$/.test(s1)
  );
}

function expectRefused(r: { status: number; text: string; what: string }, others: Workspace[]): void {
  expect(r.status, r.what).toBeGreaterThanOrEqual(400);
  expect(r.status, r.what).toBeLessThan(500);
  for (const w of others) expect(r.text, r.what).not.toContain(w.secret);
}

/** Runs `each` over `items`, `n` at a time. */
async function pool<T>(items: T[], n: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await each(items[next++]);
    }),
  );
}

describe('the real tokens', () => {
  it.each(KINDS)('%s: works for its own workspace (the baseline the changed ones are held to)', async (kind) => {
    const r = await use(kind, a.tokens[kind], a);
    // the upload link is taken and its session is unknown (no piece sent yet)
    if (kind === 'upload') expect(JSON.parse(r.text), r.what).toMatchObject({ code: 'upload_session_mismatch' });
    // the lever token is opened, and is not for the example's case
    else if (kind === 'lever') expect(r.text, r.what).toContain('this lever was given for case');
    else {
      expect(r.status, r.what).toBe(200);
      if (kind !== 'watch') expect(r.text).toContain(a.secret);
    }
    expect(r.text).not.toContain(b.secret);
  });
});

describe('changed tokens', () => {
  it.each(KINDS)('%s: every character flipped, every cut, extended: refused, nothing of either workspace', async (kind) => {
    const original = a.tokens[kind];
    const rng = fc.sample(fc.integer({ min: 1, max: BASE64URL.length - 1 }), { seed: SEED, numRuns: original.length });
    const changed = new Set<string>();
    for (let i = 0; i < original.length; i++) {
      const at = BASE64URL.indexOf(original[i]);
      const flipped = at < 0 ? 'A' : BASE64URL[(at + rng[i]) % BASE64URL.length];
      changed.add(original.slice(0, i) + flipped + original.slice(i + 1));
      changed.add(original.slice(0, i));
    }
    for (const tail of ['A', '.', '..', '%00', 'A'.repeat(2000)]) changed.add(original + tail);
    changed.add(`${original}.${original}`);
    changed.delete(original);
    changed.delete('');
    let refused = 0;
    await pool([...changed], 6, async (token) => {
      const r = await use(kind, token, a);
      if (sameBytes(token, original)) return void expect(r.status, r.what).toBeLessThan(500);
      expectRefused(r, [a, b]);
      refused++;
    });
    expect(refused).toBeGreaterThan(original.length);
  });
});

describe('tokens swapped', () => {
  it.each(KINDS.flatMap((from) => KINDS.filter((to) => to !== from).map((to) => [from, to] as const)))(
    'a %s token where a %s token goes: refused',
    async (from, to) => {
      expectRefused(await use(to, a.tokens[from], a), [a, b]);
    },
  );

  it("another workspace's page cursor with this workspace's key: 404 unknown_link, nothing of it", async () => {
    const r = await use('cursor', b.tokens.cursor, a);
    expectRefused(r, [b]);
    expect(JSON.parse(r.text)).toMatchObject({ status: 404, code: 'unknown_link' });
  });

  it("another workspace's task with this workspace's key: 404, nothing of it", async () => {
    const taskId = `tk_${'beta'.padEnd(26, '0')}`;
    for (const path of [`/v1/tasks/${taskId}`, `/v1/tasks/${taskId}/events`]) {
      const res = await fetch(svc.url + path, { headers: { authorization: `Bearer ${a.key}` } });
      const text = await res.text();
      expect(res.status, text).toBe(404);
      expect(text).not.toContain(b.secret);
    }
  });
});
