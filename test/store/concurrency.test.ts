// Races between nodes sharing one store: on PostgreSQL each "node" is its own store and connection pool on
// the same database (READ COMMITTED); on SQLite they are concurrent calls on one store. No duplicates, no
// lost pieces, exactly one winner.
import { expect, it } from 'vitest';
import type { AttestationRecord, DatasetRecord, IdempotencyRecord, OutcomeRecord, Store } from '../../host/store/index.ts';
import { KeyRing } from '../../host/signing/index.ts';
import { describeStores, HOUR, T0, text, type Place } from './helpers.ts';

const NODES = 4;

const dataset = (id: string, over: Partial<DatasetRecord> = {}): DatasetRecord => ({
  id,
  workspace_id: 'ws_1',
  status: 'open',
  columns: null,
  row_count: 0,
  filename: null,
  created_at: T0,
  last_used_at: T0,
  ...over,
});

async function pieces(store: Store, id: string) {
  const out: Array<{ seq: number; row_count: number; content: string }> = [];
  for await (const p of store.listDatasetPieces('ws_1', id)) out.push({ ...p, content: text(p.content) });
  return out;
}

describeStores('concurrent nodes', ({ dialect, openStore, newPlace, openClient }) => {
  /** NODES stores on one place: separate pools on PostgreSQL, the same store on SQLite (one process). */
  async function nodes(): Promise<{ place: Place; all: Store[] }> {
    const place = await newPlace();
    const first = await openStore(place);
    if (dialect === 'sqlite') return { place, all: Array.from({ length: NODES }, () => first) };
    const rest = await Promise.all(Array.from({ length: NODES - 1 }, () => openStore(place)));
    return { place, all: [first, ...rest] };
  }

  it('appends every piece exactly once with seq 1..n when nodes append to one dataset at once', async () => {
    const { all } = await nodes();
    await all[0]!.createDataset(dataset('ds_a'));
    const PER_NODE = 8;
    const results = await Promise.all(
      all.flatMap((store, n) =>
        Array.from({ length: PER_NODE }, (_, i) =>
          store.appendDatasetPiece({ workspace_id: 'ws_1', dataset_id: 'ds_a', content: `n${n}-p${i}`, row_count: n + 1, at: T0 + i }),
        ),
      ),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    const total = NODES * PER_NODE;
    const seqs = results.map((r) => (r.ok ? r.seq : 0)).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    const stored = await pieces(all[0]!, 'ds_a');
    expect(stored.map((p) => p.seq)).toEqual(seqs);
    expect(stored.map((p) => p.content).sort()).toEqual(
      all.flatMap((_, n) => Array.from({ length: PER_NODE }, (_, i) => `n${n}-p${i}`)).sort(),
    );
    expect((await all[0]!.getDataset('ws_1', 'ds_a'))?.row_count).toBe(stored.reduce((s, p) => s + p.row_count, 0));
  });

  it('lets exactly one of several numbered appends of the same seq win; the others are told out_of_order', async () => {
    const { all } = await nodes();
    await all[0]!.createDataset(dataset('ds_a', { status: 'awaiting_upload' }));
    for (const seq of [1, 2, 3]) {
      const results = await Promise.all(
        all.map((store, n) =>
          store.appendDatasetPiece({ workspace_id: 'ws_1', dataset_id: 'ds_a', seq, content: `n${n}`, row_count: 1, at: T0 }),
        ),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok)).toEqual(Array(NODES - 1).fill({ ok: false, reason: 'out_of_order' }));
    }
    expect((await pieces(all[0]!, 'ds_a')).map((p) => p.seq)).toEqual([1, 2, 3]);
    expect(await all[0]!.getDataset('ws_1', 'ds_a')).toMatchObject({ row_count: 3, status: 'awaiting_upload' });
  });

  it('never adds a piece to a dataset once it is sealed: what was acknowledged is exactly what is stored', async () => {
    const { all } = await nodes();
    for (let round = 0; round < 5; round++) {
      const id = `ds_${round}`;
      await all[0]!.createDataset(dataset(id));
      const appends = all.flatMap((store, n) =>
        Array.from({ length: 5 }, (_, i) =>
          store.appendDatasetPiece({ workspace_id: 'ws_1', dataset_id: id, content: `n${n}-p${i}`, row_count: 1, at: T0 }),
        ),
      );
      // The seal lands somewhere among the appends; every append after it must be refused.
      const sealed = all[round % NODES]!.sealDataset('ws_1', id, T0 + 1).then(async (ok) => ({ ok, after: await pieces(all[0]!, id) }));
      const [results, seal] = await Promise.all([Promise.all(appends), sealed]);
      expect(seal.ok).toBe(true);
      const acknowledged = results.filter((r) => r.ok);
      expect(results.filter((r) => !r.ok).every((r) => r.reason === 'dataset_sealed')).toBe(true);
      const stored = await pieces(all[0]!, id);
      // read right after the seal: nothing may be added later
      expect(stored).toEqual(seal.after);
      expect(stored.map((p) => p.seq)).toEqual(Array.from({ length: acknowledged.length }, (_, i) => i + 1));
      expect(await all[0]!.getDataset('ws_1', id)).toMatchObject({ status: 'sealed', row_count: acknowledged.length });
    }
  });

  it('leaves no piece behind when a dataset is deleted while nodes append to it', async () => {
    const { place, all } = await nodes();
    for (let round = 0; round < 5; round++) {
      const id = `ds_${round}`;
      await all[0]!.createDataset(dataset(id));
      const appends = all.flatMap((store, n) =>
        Array.from({ length: 5 }, (_, i) =>
          store.appendDatasetPiece({ workspace_id: 'ws_1', dataset_id: id, content: `n${n}-p${i}`, row_count: 1, at: T0 }),
        ),
      );
      const deleted = all[round % NODES]!.deleteDataset('ws_1', id);
      const [results, gone] = await Promise.all([Promise.all(appends), deleted]);
      expect(gone).toBe(true);
      expect(results.filter((r) => !r.ok).every((r) => r.reason === 'unknown_dataset')).toBe(true);
      for (const r of results) if (r.ok) expect(r.dataset).toMatchObject({ id, status: 'open' });
    }
    const raw = openClient(place);
    expect(await raw.get('SELECT COUNT(*) AS n FROM dataset_pieces')).toEqual({ n: 0 });
    expect(await raw.get('SELECT COUNT(*) AS n FROM datasets')).toEqual({ n: 0 });
  });

  it('lets exactly one of many nodes putting one idempotency key insert it, also when it replaces an expired record', async () => {
    const { all } = await nodes();
    const rec = (body_hash: string, created_at: number): IdempotencyRecord => ({
      workspace_id: 'ws_1',
      operation: 'svc_ask',
      key: 'k1',
      body_hash,
      status_code: 0,
      response: null,
      task_id: null,
      lease_owner: body_hash,
      lease_until: created_at + 15_000,
      created_at,
    });
    const fresh = await Promise.all(all.flatMap((s, n) => [s.putIdempotency(rec(`a${n}`, T0)), s.putIdempotency(rec(`b${n}`, T0))]));
    expect(fresh.filter((r) => r.inserted)).toHaveLength(1);
    const first = fresh.find((r) => r.inserted)!.record;
    for (const r of fresh) expect(r.record).toEqual(first);

    const later = T0 + 25 * HOUR;
    const replaced = await Promise.all(
      all.flatMap((s, n) => [
        s.putIdempotency(rec(`c${n}`, later), later - 24 * HOUR),
        s.putIdempotency(rec(`d${n}`, later), later - 24 * HOUR),
      ]),
    );
    expect(replaced.filter((r) => r.inserted)).toHaveLength(1);
    const second = replaced.find((r) => r.inserted)!.record;
    expect(second.created_at).toBe(later);
    for (const r of replaced) expect(r.record).toEqual(second);
    expect(await all[0]!.getIdempotency('ws_1', 'svc_ask', 'k1')).toEqual(second);
  });

  it('answers every put of a key while other nodes keep deleting it (the record it reports exists or it inserted)', async () => {
    const { all } = await nodes();
    const rec: IdempotencyRecord = {
      workspace_id: 'ws_1',
      operation: 'svc_ask',
      key: 'k1',
      body_hash: 'h',
      status_code: 200,
      response: '{}',
      task_id: null,
      lease_owner: null,
      lease_until: null,
      created_at: T0,
    };
    const work = all.flatMap((s, n) =>
      Array.from({ length: 15 }, async () => {
        if (n % 2 === 0) return s.putIdempotency(rec);
        await s.deleteIdempotency('ws_1', 'svc_ask', 'k1');
        return null;
      }),
    );
    for (const r of await Promise.all(work)) if (r) expect(r.record).toEqual(rec);
  });

  it('hands each pending task to exactly one claimer when every node claims at once', async () => {
    const { all } = await nodes();
    const TASKS = 12;
    for (let i = 0; i < TASKS; i++) {
      await all[0]!.createTask({ id: `tk_${String(i).padStart(2, '0')}`, workspace_id: 'ws_1', request: '{}', created_at: T0 + i });
    }
    const claimer = async (store: Store, owner: string) => {
      const got: string[] = [];
      for (;;) {
        const t = await store.claimNextTask({ owner, now: T0 + HOUR, lease_ms: 60_000 });
        if (!t) return got;
        expect(t).toMatchObject({ status: 'running', lease_owner: owner, attempts: 1 });
        got.push(t.id);
      }
    };
    const claimed = await Promise.all(all.flatMap((s, n) => [claimer(s, `n${n}a`), claimer(s, `n${n}b`)]));
    const ids = claimed.flat().sort();
    expect(ids).toEqual(Array.from({ length: TASKS }, (_, i) => `tk_${String(i).padStart(2, '0')}`));
    // nodes claiming one each at the same moment each get a different task
    for (let n = 0; n < NODES; n++) await all[0]!.createTask({ id: `tk_x${n}`, workspace_id: 'ws_1', request: '{}', created_at: T0 });
    const once = await Promise.all(all.map((s, n) => s.claimNextTask({ owner: `o${n}`, now: T0 + HOUR, lease_ms: 60_000 })));
    expect(once.every((t) => t !== null)).toBe(true);
    expect(new Set(once.map((t) => t!.id)).size).toBe(NODES);
  });

  it('creates a workspace once when nodes ensure the same id at once; each gets the stored row', async () => {
    const { all } = await nodes();
    const got = await Promise.all(
      all.flatMap((s, n) => [s.ensureWorkspace('ws_o', `name ${n}`, T0 + n), s.ensureWorkspace('ws_o', 'x', T0)]),
    );
    const stored = await all[0]!.getWorkspace('ws_o');
    expect(stored).not.toBeNull();
    for (const w of got) expect(w).toEqual(stored);
  });

  it('saves exactly one first signing key when nodes start together on an empty store', async () => {
    const { all } = await nodes();
    const key = (kid: string) => ({
      kid,
      private_jwk: `{"d":"${kid}"}`,
      public_jwk: `{"x":"${kid}"}`,
      created_at: '2025-01-01T00:00:00.000Z',
      retired_at: null,
    });
    const kids = all.flatMap((_, n) => [`k${n}a`, `k${n}b`]);
    const saved = await Promise.all(kids.map((kid, i) => all[i % NODES]!.insertFirstKey(key(kid))));
    expect(saved.filter(Boolean)).toHaveLength(1);
    expect(await all[1]!.loadKeys()).toEqual([key(kids[saved.indexOf(true)]!)]);
  });

  it('gives every node the same active signing key when their key rings open together on an empty store', async () => {
    const { all } = await nodes();
    const rings = await Promise.all(all.map((s) => KeyRing.open(s)));
    const kids = new Set(rings.map((r) => r.activeKid));
    expect(kids.size).toBe(1);
    expect((await all[0]!.loadKeys()).map((k) => k.kid)).toEqual([...kids]);
  });

  it('stores one fit and one link per workspace when nodes put the same model at once', async () => {
    const { place, all } = await nodes();
    const ROUNDS = 60; // the fit_key race below showed in about one round in twenty
    for (let round = 0; round < ROUNDS; round++) {
      const model = (workspace_id: string) => ({
        model_ref: `mr1_${String(round).padStart(32, '0')}`,
        workspace_id,
        fit_key: `fk_${round}`,
        record_hash: 'rh_1',
        bytes: Buffer.from(`model-bytes-${round}`),
        meta: '{}',
        created_at: T0,
      });
      const put = await Promise.all(all.flatMap((s) => [s.putModel(model('ws_1')), s.putModel(model('ws_2')), s.putModel(model('ws_1'))]));
      for (const m of put) expect(text(m.bytes)).toBe(`model-bytes-${round}`);
      expect(await all[0]!.getModelByFitKey(`fk_${round}`)).toMatchObject({ model_ref: model('ws_1').model_ref });
      for (const ws of ['ws_1', 'ws_2']) expect(await all[1]!.getModelByRef(ws, model(ws).model_ref)).toMatchObject({ workspace_id: ws });
    }
    const raw = openClient(place);
    expect(await raw.get('SELECT COUNT(*) AS n FROM fits')).toEqual({ n: ROUNDS });
    expect(await raw.get('SELECT COUNT(*) AS n FROM workspace_models')).toEqual({ n: 2 * ROUNDS });
  });

  it('writes each outcome event once when nodes send overlapping batches in opposite orders, without a deadlock', async () => {
    const { all } = await nodes();
    const outcome = (event_id: string): OutcomeRecord => ({
      workspace_id: 'ws_1',
      model_ref: 'mr1_x',
      entity_id: 'c',
      outcome: 1,
      observed_at: T0,
      event_id,
      created_at: T0,
    });
    const events = Array.from({ length: 30 }, (_, i) => `e${String(i).padStart(2, '0')}`);
    const batches = all.flatMap((_, n) => [n % 2 === 0 ? events : [...events].reverse(), events.filter((_, i) => i % (n + 2) === 0)]);
    const results = await Promise.all(batches.map((b, i) => all[i % NODES]!.writeOutcomes(b.map(outcome))));
    expect(results.reduce((s, r) => s + r.written, 0)).toBe(events.length);
    expect(results.reduce((s, r) => s + r.duplicates, 0)).toBe(batches.reduce((s, b) => s + b.length, 0) - events.length);
    expect((await all[0]!.listOutcomes('ws_1', 'mr1_x')).map((o) => o.event_id)).toEqual(events);
  });

  it('writes an attestation once when nodes send the same event at once; every node gets the stored one back', async () => {
    const { all } = await nodes();
    const a = (n: number): AttestationRecord => ({
      workspace_id: 'ws_1',
      model_ref: 'mr1_x',
      entity_id: 'c1',
      feature: 'tenure',
      direction: 'increase',
      compliant: n % 2 === 0,
      post_value: String(n),
      acted_at: T0,
      event_id: 'a1',
      created_at: T0,
    });
    const results = await Promise.all(all.flatMap((s, n) => [s.insertAttestation(a(n)), s.insertAttestation(a(n + NODES))]));
    expect(results.filter((r) => r.written)).toHaveLength(1);
    const stored = results.find((r) => r.written)!.record;
    for (const r of results) expect(r.record).toEqual(stored);
    expect(await all[0]!.listAttestations('ws_1', 'mr1_x')).toEqual([stored]);
  });
});
