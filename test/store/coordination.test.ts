// What nodes sharing a store agree on (host/store/coordination.ts), on both dialects: the database clock,
// secrets made once, rate-window counts that hold the limit whoever counts, periodic jobs claimed once per
// period, and fit claims with a lease. On PostgreSQL the "nodes" are separate pools on one database.
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import type { Store } from '../../host/store/index.ts';
import { describeStores, HOUR, T0, type Place } from './helpers.ts';

const NODES = 4;

describeStores('coordination', ({ dialect, openStore, newPlace }) => {
  async function nodes(): Promise<{ place: Place; all: Store[] }> {
    const place = await newPlace();
    const first = await openStore(place);
    if (dialect === 'sqlite') return { place, all: Array.from({ length: NODES }, () => first) };
    const rest = await Promise.all(Array.from({ length: NODES - 1 }, () => openStore(place)));
    return { place, all: [first, ...rest] };
  }

  it("reads the database server's clock on PostgreSQL and none on SQLite", async () => {
    const store = await openStore();
    expect(store.dialect).toBe(dialect);
    const before = Date.now();
    const t = await store.databaseTime();
    const after = Date.now();
    if (dialect === 'sqlite') {
      expect(t).toBeNull();
      return;
    }
    // The test server runs on this machine: the same clock, read within the round trip (ms resolution).
    expect(t).toBeGreaterThanOrEqual(before - 1);
    expect(t).toBeLessThanOrEqual(after + 1);
  });

  it('keeps one secret per purpose: the first candidate wins, for every node, and survives a reopen', async () => {
    const { place, all } = await nodes();
    const candidates = all.map(() => randomBytes(32));
    const got = await Promise.all(all.map((s, i) => s.ensureSecret('lever-token', candidates[i]!, T0)));
    const hex = got.map((g) => Buffer.from(g).toString('hex'));
    expect(new Set(hex).size).toBe(1);
    expect(candidates.map((c) => c.toString('hex'))).toContain(hex[0]);
    // another purpose is another secret
    const other = await all[1]!.ensureSecret('upload-token', randomBytes(32), T0);
    expect(Buffer.from(other).toString('hex')).not.toBe(hex[0]);
    const again = await (await openStore(place)).ensureSecret('lever-token', randomBytes(32), T0 + HOUR);
    expect(Buffer.from(again).toString('hex')).toBe(hex[0]);
  });

  it('counts a window to its limit and no further, however many nodes count at once', async () => {
    const { all } = await nodes();
    const LIMIT = 25;
    const w = { bucket: 'workspace:ws_1', window_start: T0, expires_at: T0 + 60_000, limit: LIMIT };
    const counts = await Promise.all(all.flatMap((s) => Array.from({ length: 15 }, () => s.countInWindow(w))));
    const allowed = counts.filter((c): c is number => c !== null).sort((a, b) => a - b);
    // 60 tries, 25 admitted, each count handed out once
    expect(allowed).toEqual(Array.from({ length: LIMIT }, (_, i) => i + 1));
    expect(counts.filter((c) => c === null)).toHaveLength(60 - LIMIT);
    // the next window and another bucket start from nothing
    expect(await all[0]!.countInWindow({ ...w, window_start: T0 + 60_000, expires_at: T0 + 120_000 })).toBe(1);
    expect(await all[0]!.countInWindow({ ...w, bucket: 'workspace:ws_2' })).toBe(1);
  });

  it('sweeps the counters of windows that ended, and only those', async () => {
    const store = await openStore();
    const w = { bucket: 'register:10.0.0.1', window_start: T0, expires_at: T0 + HOUR, limit: 2 };
    expect(await store.countInWindow(w)).toBe(1);
    expect(await store.countInWindow(w)).toBe(2);
    await store.sweep(T0 + HOUR - 1);
    expect(await store.countInWindow(w)).toBeNull(); // still full: not swept
    await store.sweep(T0 + HOUR + 1);
    expect(await store.countInWindow(w)).toBe(1);
  });

  it('lets one node claim a periodic job per period', async () => {
    const { all } = await nodes();
    const P = 10 * 60_000;
    const first = await Promise.all(all.map((s, i) => s.claimJob('retention-sweep', T0, P, `node${i}`)));
    expect(first.filter(Boolean)).toHaveLength(1);
    // within the period: nobody; once it has passed: one again
    expect(await Promise.all(all.map((s, i) => s.claimJob('retention-sweep', T0 + P - 1, P, `node${i}`)))).toEqual(all.map(() => false));
    const second = await Promise.all(all.map((s, i) => s.claimJob('retention-sweep', T0 + P, P, `node${i}`)));
    expect(second.filter(Boolean)).toHaveLength(1);
    // another job has its own period
    expect(await all[0]!.claimJob('other', T0 + P, P, 'node0')).toBe(true);
  });

  it('gives a fit claim to one node until its lease lapses, then to the next; the owner renews and releases it', async () => {
    const { all } = await nodes();
    const lease = { now: T0, lease_ms: 15_000 };
    const won = await Promise.all(all.map((s, i) => s.claimFit('fk_1', { ...lease, owner: `node${i}` })));
    expect(won.filter(Boolean)).toHaveLength(1);
    const owner = `node${won.indexOf(true)}`;
    const other = owner === 'node0' ? 'node1' : 'node0';
    // held: others lose, the owner may claim again (a second ask in its own process)
    expect(await all[0]!.claimFit('fk_1', { ...lease, now: T0 + 14_000, owner: other })).toBe(false);
    expect(await all[0]!.claimFit('fk_1', { ...lease, now: T0 + 14_000, owner })).toBe(true); // lease now until T0 + 29 s
    expect(await all[1]!.renewFitClaim('fk_1', other, T0 + 60_000)).toBe(false);
    expect(await all[1]!.renewFitClaim('fk_1', owner, T0 + 40_000)).toBe(true);
    expect(await all[2]!.claimFit('fk_1', { ...lease, now: T0 + 39_999, owner: other })).toBe(false);
    // the owner stopped renewing (killed): after the lease, one taker
    const taken = await Promise.all(all.map((s, i) => s.claimFit('fk_1', { ...lease, now: T0 + 40_001, owner: `taker${i}` })));
    expect(taken.filter(Boolean)).toHaveLength(1);
    const taker = `taker${taken.indexOf(true)}`;
    expect(await all[0]!.releaseFitClaim('fk_1', owner)).toBe(false); // no longer its claim
    expect(await all[0]!.releaseFitClaim('fk_1', taker)).toBe(true);
    expect(await all[3]!.claimFit('fk_1', { ...lease, now: T0 + 40_002, owner: 'late' })).toBe(true);
  });

  it('sweeps fit claims whose lease ran out', async () => {
    const store = await openStore();
    expect(await store.claimFit('fk_old', { owner: 'dead', now: T0, lease_ms: 1000 })).toBe(true);
    expect(await store.claimFit('fk_live', { owner: 'alive', now: T0, lease_ms: HOUR })).toBe(true);
    await store.sweep(T0 + 2000);
    expect(await store.renewFitClaim('fk_old', 'dead', T0 + 5000)).toBe(false);
    expect(await store.renewFitClaim('fk_live', 'alive', T0 + 5000)).toBe(true);
  });
});
