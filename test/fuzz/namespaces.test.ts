// Isolation between namespaces and workspaces under fuzzing (docs/reference/ask.md#namespace, decisions 0007, 0011
// and 0022), and structure-aware mutation of the bodies of the operations that take a namespace. Two
// workspaces, three namespaces in one (its own, `acme`, `globex`) and `acme` in the other, each with a model,
// a lever token, a confirmed mapping of a fetched log (docs/reference/map.md) and a profile whose words are
// that namespace's secret. Every request is a real body of one
// of the operations, for one of those models, sent by either workspace in any namespace, then changed: a
// field dropped, a key repeated, a value retyped, made huge or deeply nested, a string turned into a Unicode
// look-alike (ACME, Cyrillic а, a NUL, a lone surrogate), an id swapped for one of another namespace, workspace
// or kind. Whatever is sent:
//   - never a 5xx (but 503 with Retry-After), and every refusal is a Problem; invalid_request names its field;
//   - a 2xx for a model only from the workspace and namespace that own it (a look-alike namespace is not it);
//   - no reply holds another namespace's or workspace's model_ref, lever token, mapping_id or profile words
//     unless the request itself carried them; a mapping replays (svc_map) and is scheduled (svc_schedule)
//     only in the workspace and namespace that made it;
//   - a refused call stores nothing: the rows of every table a call can write (models and their expiry,
//     profiles, outcomes, attestations, usage, answers, tasks, idempotency records, mappings, schedules) are
//     the same after it. A schedule made runs at once: its run is waited for before the next request.
// Seeded (FUZZ_SEED); FUZZ_NS_RUNS sets the number of requests (default 300, a few seconds; a long run is e.g.
// FUZZ_NS_RUNS=2000 FUZZ_SEED=7). The replies are counted by status and code on stdout. Requests are sent one
// at a time, so a change to the store is the request's own.
import { createHash } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { churnRows } from '../helpers/churn.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { SAMPLE_LOG, startLogOrigin, type LogOrigin } from '../operations/schedules/helpers.ts';

const RUNS = Number(process.env.FUZZ_NS_RUNS ?? 300);
const SEED = Number(process.env.FUZZ_SEED ?? 3607);

/** A namespace of a workspace: what it owns, and what no other may see. */
interface Owner {
  name: string;
  key: string;
  ws: 'A' | 'B';
  namespace: string | undefined;
  modelRef: string;
  leverToken: string;
  leverCase: string;
  /** The profile's words, which every answer in this namespace repeats. */
  words: string;
  /** A confirmed mapping of the origin's log, made in this namespace. */
  mappingId: string;
}

let svc: TestService;
let origin: LogOrigin;
let owners: Owner[];
let workspaceIds: Record<Owner['ws'], string>;
let db: Database.Database;
const rows = churnRows({ seed: 11, rows: 1500 });
const cases = churnRows({ seed: 12, rows: 3, idPrefix: 'n' }).map(({ churned: _o, ...r }) => r);
const NEVER = `mr1_${'e'.repeat(32)}`;

beforeAll(async () => {
  // a part of the sample log: a schedule's run (fetch, map, fit) and a replay stay short
  origin = await startLogOrigin(() => SAMPLE_LOG.split('\n').slice(0, 300).join('\n') + '\n');
  svc = await startTestService({
    rateLimitPerMinute: 1_000_000,
    allowLoopbackFetchForTests: true,
    fetchCaPem: origin.server.cert,
  });
  const a = await svc.liveCaller('ns-fuzz-a', true);
  const b = await svc.liveCaller('ns-fuzz-b', true);
  workspaceIds = { A: a.workspaceId, B: b.workspaceId };
  const made: Owner[] = [];
  for (const [ws, key, namespace] of [
    ['A', a.key, undefined],
    ['A', a.key, 'acme'],
    ['A', a.key, 'globex'],
    ['B', b.key, 'acme'],
  ] as const) {
    const name = `${ws}/${namespace ?? '(own)'}`;
    const words = `zq${ws}${namespace ?? 'own'}secret`.toLowerCase(); // `says` capitalises it: compared in lower case
    const profile = await svc.post('/v1/profile', { ...(namespace ? { namespace } : {}), words: { case: words } }, key);
    expect(profile.status, JSON.stringify(profile.body)).toBe(200);
    let fit = await svc.post(
      '/v1/ask',
      {
        data: { rows },
        entity_column: 'customer_id',
        subject_kind: 'org',
        ...(namespace ? { namespace } : {}),
        questions: { q: { type: 'yesno', outcome_column: 'churned', outcome_is_desirable: false } },
        cases: { ids: Array.from({ length: 40 }, (_, i) => `c${String(i).padStart(5, '0')}`) },
      },
      key,
    );
    // a fit slower than the pending wait (a loaded machine) is polled to its end
    while (fit.status === 202) {
      await new Promise((r) => setTimeout(r, fit.body.retry_after_ms));
      fit = await svc.post('/v1/poll', { task_id: fit.body.task_id }, key);
    }
    expect(fit.status, JSON.stringify(fit.body).slice(0, 300)).toBe(200);
    const q = fit.body.answers.q;
    expect(JSON.stringify(fit.body).toLowerCase()).toContain(words);
    const withLever = q.cases.find((c: any) => c.levers?.length > 0);
    const mapped = await svc.post(
      '/v1/map',
      {
        sources: [{ fetch_url: origin.url }],
        answers: { outcome: { offer_id: 'lapsed:customer_events' } },
        ...(namespace ? { namespace } : {}),
      },
      key,
    );
    expect(mapped.body.status, JSON.stringify(mapped.body).slice(0, 300)).toBe('confirmed');
    made.push({
      name,
      key,
      ws,
      namespace,
      modelRef: q.model_ref,
      leverToken: withLever.levers[0].lever_token,
      leverCase: withLever.entity_id,
      words,
      mappingId: mapped.body.mapping_id,
    });
  }
  owners = made;
  // a mapping_id, like a model_ref, is the same for the same sources and namespace in either workspace
  // (decision 0025); the store keeps them apart by workspace
  expect(new Set(owners.map((o) => o.mappingId)).size).toBe(3);
  expect(owners[3].mappingId).toBe(owners[1].mappingId);
  // decision 0007: a namespaced ref is the fit's ref and the namespace hashed, so `acme` of either workspace has
  // the same ref (and lever tokens, which name model and case); the store keeps them apart by workspace
  expect(new Set(owners.map((o) => o.modelRef)).size).toBe(3);
  expect(owners[3].modelRef).toBe(owners[1].modelRef);
  db = new Database(path.join(svc.dataDir, 'store.sqlite'), { readonly: true, fileMustExist: true });
});

const replies: Record<string, number> = {};
afterAll(async () => {
  const sent = Object.values(replies).reduce((x, y) => x + y, 0);
  console.log(`namespace fuzz: ${sent} requests (seed ${SEED}), replies ${JSON.stringify(replies)}`);
  db?.close();
  await svc?.close();
  await origin?.server.close();
});

// --- what a call may write --------------------------------------------------------------------------------

/**
 * Every table of the store is compared but these: the service's own bookkeeping (rate windows, leases and
 * claims, keys and secrets, migrations), which a refused call may move.
 */
const NOT_COMPARED = new Set(['rate_windows', 'service_secrets', 'signing_keys', 'fit_claims', 'cluster_jobs', 'schema_migrations']);
/** Columns that a read refreshes (a dataset's retention counts from its last use). */
const VOLATILE = new Set(['last_used_at']);

async function storeDigest(): Promise<Record<string, string>> {
  // what earlier calls left to the batching writers is written first (usage, answers kept for the track record)
  await svc.services.usage.flush();
  await svc.services.keptAnswers.flush();
  const out: Record<string, string> = {};
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{
    name: string;
  }>;
  for (const { name: table } of tables) {
    if (NOT_COMPARED.has(table)) continue;
    const all = db.prepare(`SELECT * FROM ${table}`).all() as Array<Record<string, unknown>>;
    const kept = all.map((r) =>
      JSON.stringify(
        Object.entries(r).filter(([k]) => !VOLATILE.has(k)),
        (_k, v) => (typeof v === 'bigint' ? String(v) : v instanceof Uint8Array ? createHash('sha256').update(v).digest('hex') : v),
      ),
    );
    kept.sort();
    out[table] = `${all.length} ${createHash('sha256').update(kept.join('\n')).digest('hex').slice(0, 16)}`;
  }
  return out;
}

/** Usage metered so far, by workspace and namespace ('' its own) and kind (decision 0011). */
async function usage(): Promise<Record<string, number>> {
  await svc.services.usage.flush();
  const rows = db.prepare('SELECT workspace_id, namespace, kind, SUM(count) AS n FROM usage_ledger GROUP BY 1, 2, 3').all() as Array<{
    workspace_id: string;
    namespace: string;
    kind: string;
    n: number;
  }>;
  return Object.fromEntries(rows.map((r) => [`${r.workspace_id}/${r.namespace}/${r.kind}`, Number(r.n)]));
}

/** Fields a refusal may name that the base body lacks: svc_map without mapping_id asks for its sources. */
const ASKED_FOR: Partial<Record<Op, string[]>> = { map: ['sources'] };

/** Waits until no task is pending or running (a schedule's run), at most a minute. */
async function tasksSettled(): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const { n } = db.prepare("SELECT COUNT(*) AS n FROM tasks WHERE status IN ('pending', 'running')").get() as { n: number };
    if (Number(n) === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('a task still running after a minute');
}

// --- the requests -----------------------------------------------------------------------------------------

type Op =
  | 'ask'
  | 'report-outcomes'
  | 'drift'
  | 'evidence'
  | 'track-record'
  | 'extend-model'
  | 'attest'
  | 'profile'
  | 'export-model'
  | 'map'
  | 'schedule';
const OPS: Op[] = [
  'ask',
  'report-outcomes',
  'drift',
  'evidence',
  'track-record',
  'extend-model',
  'attest',
  'profile',
  'export-model',
  'map',
  'schedule',
];

/** A valid body of `op` about `model`'s model, in namespace `ns`. */
function baseBody(op: Op, model: Owner, ns: string | undefined): Record<string, unknown> {
  const at = ns === undefined ? {} : { namespace: ns };
  switch (op) {
    case 'ask':
      return {
        entity_column: 'customer_id',
        subject_kind: 'org',
        ...at,
        questions: { q: { type: 'yesno', model_ref: model.modelRef } },
        cases: { rows: cases },
      };
    case 'report-outcomes':
      return {
        model_ref: model.modelRef,
        ...at,
        outcomes: [{ entity_id: 'c00001', outcome: 1, observed_at: '2026-01-01', event_id: 'ev-1' }],
      };
    case 'extend-model':
      return { model_ref: model.modelRef, ...at, days: 30 };
    case 'attest':
      return {
        model_ref: model.modelRef,
        ...at,
        entity_id: model.leverCase,
        lever_token: model.leverToken,
        post_value: 0,
        acted_at: '2026-01-02T00:00:00Z',
        event_id: 'at-1',
      };
    case 'profile':
      return { ...at };
    case 'map':
      // a replay: the mapping rebuilt from its sources, fetched again
      return { mapping_id: model.mappingId, ...at };
    case 'schedule':
      return { mapping_id: model.mappingId, cadence: 'weekly', subject_kind: 'org', ...at };
    default:
      return { model_ref: model.modelRef, ...at };
  }
}

const namespaceArb = fc.constantFrom<string | undefined>(undefined, 'acme', 'globex', 'initech');

/** Look-alikes of a string: case, homoglyphs, invisible and control characters, a lone surrogate (raw JSON). */
function lookAlikes(s: string): string[] {
  return [
    s.toUpperCase(),
    s.replace(/a/, '\u0430'), // Cyrillic а
    `${s}\u0000`,
    `${s} `,
    ` ${s}`,
    `${s}\u200b`,
    `\u202e${s}`,
    s.normalize('NFD') + '\u0301',
    s.replace(/[a-z0-9]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)), // full width
    `${s}\ud800`,
    '😀'.repeat(20),
    '',
  ];
}

type Path = Array<string | number>;
function pathsOf(v: unknown, at: Path = [], out: Path[] = []): Path[] {
  if (at.length > 0) out.push(at);
  if (Array.isArray(v)) v.slice(0, 3).forEach((x, i) => pathsOf(x, [...at, i], out));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) pathsOf(x, [...at, k], out);
  return out;
}
function getAt(v: any, p: Path): unknown {
  for (const k of p) v = v?.[k];
  return v;
}
function setAt(v: any, p: Path, value: unknown, remove = false): void {
  for (const k of p.slice(0, -1)) v = v[k];
  const last = p[p.length - 1];
  if (remove) Array.isArray(v) ? v.splice(Number(last), 1) : delete v[last];
  else v[last] = value;
}

/** Values that replace a field's: other types, huge and deep ones, look-alikes, other owners' and kinds' ids. */
/** A look-alike (lookAlikes' index) of the string the field holds ('acme' where it holds none). */
const LOOK = '\u0001look';
const replacement: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, 0, -1, 1.5, 1e308, -0, 2 ** 53 + 1, '', 'x', [], {}, [0], { value: 0 }),
  fc.nat({ max: lookAlikes('acme').length - 1 }).map((i) => ({ [LOOK]: i })),
  fc
    .constantFrom('big-string', 'big-array', 'deep')
    .map((k) => (k === 'big-string' ? 'y'.repeat(300_000) : k === 'big-array' ? Array.from({ length: 20_000 }, () => 1) : RAW_DEEP)),
  fc.constantFrom(
    NEVER,
    `mr1_${'E'.repeat(32)}`,
    'mr1_',
    `ds_${'a'.repeat(26)}`,
    `tk_${'a'.repeat(26)}`,
    `mp_${'a'.repeat(10)}`,
    `sc_${'a'.repeat(26)}`,
    'sample:saas_churn',
  ),
  fc
    .integer({ min: 0, max: 3 })
    .chain((i) => fc.constantFrom(OTHER_ID(i, 'ref'), OTHER_ID(i, 'lever'), OTHER_ID(i, 'case'), OTHER_ID(i, 'mapping'))),
);
/** A marker replaced by 3,000 nested arrays in the body's text (JSON.stringify would not stop at a depth). */
const RAW_DEEP = '\u0001deep\u0001';
const OTHER_ID = (i: number, what: 'ref' | 'lever' | 'case' | 'mapping') => `\u0001${what}${i}\u0001`;
function textOf(body: unknown): string {
  return JSON.stringify(body)
    .replaceAll(JSON.stringify(RAW_DEEP), `${'['.repeat(3000)}1${']'.repeat(3000)}`)
    .replaceAll(/"\\u0001(ref|lever|case|mapping)(\d)\\u0001"/g, (_m, what: string, i: string) => {
      const o = owners[Number(i)];
      return JSON.stringify(what === 'ref' ? o.modelRef : what === 'lever' ? o.leverToken : what === 'case' ? o.leverCase : o.mappingId);
    });
}

type Change = { kind: 'none' } | { kind: 'drop' | 'replace' | 'repeat'; path: Path; value?: unknown };
const request = fc.record({
  op: fc.constantFrom(...OPS),
  caller: fc.integer({ min: 0, max: 3 }),
  model: fc.integer({ min: 0, max: 3 }),
  namespace: fc.oneof(namespaceArb, fc.constant('same' as const)),
  change: fc.constantFrom('none', 'drop', 'replace', 'replace', 'replace', 'repeat'),
  pick: fc.nat(),
  value: replacement,
});
type Req = typeof request extends fc.Arbitrary<infer T> ? T : never;

interface Sent {
  text: string;
  caller: Owner;
  namespace: string | undefined;
  model: Owner;
  op: Op;
  change: string;
}

function build(r: Req): Sent {
  const caller = owners[r.caller];
  const model = owners[r.model];
  const ns = r.namespace === 'same' ? caller.namespace : r.namespace;
  const body = baseBody(r.op, model, ns);
  const paths = pathsOf(body);
  let text: string;
  let change: string = r.change;
  if (r.change === 'none' || paths.length === 0) {
    text = textOf(body);
    change = 'none';
  } else {
    const p = paths[r.pick % paths.length];
    if (r.change === 'drop') {
      setAt(body, p, undefined, true);
      text = textOf(body);
    } else if (r.change === 'replace') {
      const current = getAt(body, p);
      const look = (r.value as Record<string, number> | null)?.[LOOK];
      setAt(body, p, look === undefined ? r.value : lookAlikes(typeof current === 'string' ? current : 'acme')[look]);
      text = textOf(body);
    } else {
      // a top-level key repeated with another value, before or after the real one (JSON.parse keeps the last)
      const key = String(p[0]);
      const inner = textOf(body).slice(1);
      const value = (r.value as Record<string, number> | null)?.[LOOK] === undefined ? r.value : 'ACME';
      const extra = `${JSON.stringify(key)}:${textOf(value)}`;
      text = r.pick % 2 === 0 ? `{${extra},${inner}` : `{${inner.slice(0, -1)},${extra}}`;
    }
    change = `${r.change} ${p.join('.')}`;
  }
  return { text, caller, namespace: ns, model, op: r.op, change };
}

/** What a lever token says in the clear (docs/decisions/0012-signed-links.md): its payload, base64url JSON. */
const leverPayload = (token: string) => Buffer.from(token.split('.')[0], 'base64url').toString('utf8');

/** Whether the body as the service reads it (JSON.parse keeps a repeated key's last value) names `ns`. */
function namespaceSent(text: string): unknown {
  try {
    return (JSON.parse(text) as Record<string, unknown>)?.namespace;
  } catch {
    return Symbol('unreadable');
  }
}

async function send(
  s: Sent,
): Promise<{ status: number; text: string; json: any; what: string; retryAfter: string | null; type: string | null }> {
  const res = await fetch(`${svc.url}/v1/${s.op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${s.caller.key}` },
    body: s.text,
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const label = `${res.status}${json?.code ? ` ${json.code}` : ''}`;
  replies[label] = (replies[label] ?? 0) + 1;
  const what = `${s.op} by ${s.caller.name} in ${String(s.namespace)} about ${s.model.name}'s model, ${s.change}: ${s.text.slice(0, 300)} -> ${res.status} ${text.slice(0, 400)}`;
  return { status: res.status, text, json, what, retryAfter: res.headers.get('retry-after'), type: res.headers.get('content-type') };
}

it(
  'isolation and mutated bodies: no 5xx, a Problem naming its field, nothing of another namespace, nothing stored by a refusal',
  async () => {
    let refused = 0;
    let answered = 0;
    let last: Record<string, string> | undefined;
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const s = build(r);
        // calls go one at a time, so the store after one call is the store before the next
        const before = (last ??= await storeDigest());
        const usedBefore = await usage();
        const reply = await send(s);
        // never a 5xx but the capacity signal
        if (reply.status >= 500) expect(reply.status === 503 && Number(reply.retryAfter) > 0, reply.what).toBe(true);
        if (reply.status >= 400) {
          refused++;
          expect(reply.type, reply.what).toMatch(/^application\/problem\+json/);
          for (const f of ['type', 'title', 'detail', 'code', 'remedy'])
            expect(typeof reply.json?.[f], `${reply.what}: ${f}`).toBe('string');
          // the field at fault is named: one of the body's own fields (a part of it), or the body itself
          if (['invalid_request', 'model_ref_missing', 'invalid_outcomes'].includes(reply.json.code) && reply.json.field !== undefined) {
            expect(['body', ...Object.keys(baseBody(s.op, s.model, s.namespace)), ...(ASKED_FOR[s.op] ?? [])], reply.what).toContain(
              String(reply.json.field).split(/[.[]/)[0],
            );
          }
          if (reply.json.code === 'invalid_request') expect(typeof reply.json.field, reply.what).toBe('string');
          if (reply.json.code === 'model_ref_missing') expect(reply.json.field, reply.what).toMatch(/model_ref$/);
          // a refusal stores nothing
          last = await storeDigest();
          expect(last, reply.what).toEqual(before);
        } else {
          answered++;
          last = undefined;
          // what it bills is counted in the caller's workspace and the namespace it named, nowhere else
          const ns = namespaceSent(s.text);
          const usedAfter = await usage();
          const moved = Object.keys(usedAfter).filter((k) => usedAfter[k] !== (usedBefore[k] ?? 0));
          for (const k of moved)
            expect(k.startsWith(`${workspaceIds[s.caller.ws]}/${typeof ns === 'string' ? ns : ''}/`), `${reply.what}: billed ${k}`).toBe(
              true,
            );
          // a model serves only the workspace and namespace that own it (the body's namespace as read, exactly)
          const named = owners.filter((o) => s.text.includes(o.modelRef));
          if (s.op !== 'profile' && named.length > 0 && reply.text.includes(named[0].modelRef)) {
            expect(
              named.some((o) => o.ws === s.caller.ws && o.namespace === namespaceSent(s.text)),
              reply.what,
            ).toBe(true);
          }
          // a mapping replays and is scheduled only in the workspace and namespace that made it (decision 0022)
          if (s.op === 'map' || s.op === 'schedule') {
            const mine = owners.filter((o) => s.text.includes(o.mappingId));
            expect(
              mine.some((o) => o.ws === s.caller.ws && o.namespace === namespaceSent(s.text)),
              reply.what,
            ).toBe(true);
          }
          // a schedule's first run starts at once: let it end before the next call reads the store
          if (s.op === 'schedule') await tasksSettled();
        }
        // nothing of another namespace or workspace that the request did not carry itself (nor its own namespace has)
        const ns = namespaceSent(s.text);
        const own = owners.find((o) => o.ws === s.caller.ws && o.namespace === ns);
        // a lever token is signed, not sealed: the model and case it names are carried by the request that sends it
        const carried = s.text + owners.map((o) => (s.text.includes(o.leverToken) ? leverPayload(o.leverToken) : '')).join(' ');
        for (const o of owners) {
          if (o === own) continue;
          for (const secret of [o.modelRef, o.leverToken, o.mappingId]) {
            if (!carried.includes(secret) && secret !== own?.modelRef && secret !== own?.leverToken && secret !== own?.mappingId)
              expect(reply.text.includes(secret), `${reply.what}: holds ${o.name}'s ${secret.slice(0, 20)}`).toBe(false);
          }
          expect(reply.text.toLowerCase().includes(o.words), `${reply.what}: holds ${o.name}'s profile words`).toBe(false);
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    expect(refused).toBeGreaterThan(RUNS / 4);
    expect(answered).toBeGreaterThan(RUNS / 20);
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
  },
  Math.max(120_000, RUNS * 500), // a long run takes its time
);
