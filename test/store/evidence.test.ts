// The usage ledger, outcomes (all-or-nothing, duplicates counted) and attestations.
import { expect, it } from 'vitest';
import type { AttestationRecord, OutcomeRecord } from '../../host/store/index.ts';
import { describeStores, T0 } from './helpers.ts';

const REF = 'mr1_' + 'a'.repeat(32);

const outcome = (event_id: string | null, over: Partial<OutcomeRecord> = {}): OutcomeRecord => ({
  workspace_id: 'ws_1',
  model_ref: REF,
  entity_id: 'c1',
  outcome: 1,
  observed_at: T0,
  event_id,
  created_at: T0,
  ...over,
});

const attestation = (event_id: string, over: Partial<AttestationRecord> = {}): AttestationRecord => ({
  workspace_id: 'ws_1',
  model_ref: REF,
  entity_id: 'c1',
  feature: 'tenure',
  direction: 'increase',
  compliant: true,
  post_value: '12',
  acted_at: T0,
  event_id,
  created_at: T0,
  ...over,
});

describeStores('usage ledger', ({ openStore }) => {
  it('totals fits and decisions per UTC month and workspace', async () => {
    const store = await openStore();
    const jan = Date.UTC(2025, 0, 1);
    const feb = Date.UTC(2025, 1, 1);
    await store.recordUsage({ workspace_id: 'ws_1', kind: 'fit', count: 1, at: jan });
    await store.recordUsage({ workspace_id: 'ws_1', kind: 'decision', count: 250, at: jan + 5 });
    await store.recordUsage({ workspace_id: 'ws_1', kind: 'decision', count: 50, at: feb - 1 });
    await store.recordUsage({ workspace_id: 'ws_1', kind: 'fit', count: 1, at: feb });
    await store.recordUsage({ workspace_id: 'ws_2', kind: 'fit', count: 9, at: jan });
    expect(await store.getMonthlyUsage('ws_1', T0)).toEqual({ month: '2025-01', fits: 1, decisions: 300 });
    expect(await store.getMonthlyUsage('ws_1', feb + 10)).toEqual({ month: '2025-02', fits: 1, decisions: 0 });
    expect(await store.getMonthlyUsage('ws_3', T0)).toEqual({ month: '2025-01', fits: 0, decisions: 0 });
  });
});

describeStores('outcomes', ({ openStore }) => {
  it('writes a batch and counts repeated event ids as duplicates', async () => {
    const store = await openStore();
    expect(await store.writeOutcomes([outcome('e1'), outcome('e2', { entity_id: 'c2', outcome: 0 })])).toEqual({
      written: 2,
      duplicates: 0,
      written_each: [true, true],
    });
    // per item in the order given (docs/reference/outcomes.md#report): of two items with one event_id the first is written
    expect(await store.writeOutcomes([outcome('e2'), outcome('e3', { observed_at: T0 + 1 }), outcome('e3')])).toEqual({
      written: 1,
      duplicates: 2,
      written_each: [false, true, false],
    });
    const listed = await store.listOutcomes('ws_1', REF);
    expect(listed.map((o) => [o.event_id, o.outcome])).toEqual([
      ['e1', 1],
      ['e2', 0],
      ['e3', 1],
    ]);
  });

  it('writes nothing when any item fails', async () => {
    const store = await openStore();
    const broken = outcome('e2', { observed_at: null as unknown as number });
    await expect(store.writeOutcomes([outcome('e1'), broken])).rejects.toThrow();
    expect(await store.listOutcomes('ws_1', REF)).toEqual([]);
  });

  it('writes items without an event id every time', async () => {
    const store = await openStore();
    expect(await store.writeOutcomes([outcome(null), outcome(null)])).toEqual({ written: 2, duplicates: 0, written_each: [true, true] });
  });

  it('keeps event ids apart per workspace and model', async () => {
    const store = await openStore();
    await store.writeOutcomes([outcome('e1')]);
    const r = await store.writeOutcomes([outcome('e1', { workspace_id: 'ws_2' }), outcome('e1', { model_ref: 'mr1_' + 'b'.repeat(32) })]);
    expect(r).toEqual({ written: 2, duplicates: 0, written_each: [true, true] });
    expect(await store.listOutcomes('ws_2', REF)).toHaveLength(1);
  });

  it('accepts an empty batch', async () => {
    const store = await openStore();
    expect(await store.writeOutcomes([])).toEqual({ written: 0, duplicates: 0, written_each: [] });
  });
});

describeStores('attestations', ({ openStore }) => {
  it('inserts once per event id and returns the first on a repeat', async () => {
    const store = await openStore();
    expect(await store.insertAttestation(attestation('a1'))).toEqual({ written: true, record: attestation('a1') });
    const again = await store.insertAttestation(attestation('a1', { compliant: false, post_value: '0' }));
    expect(again).toEqual({ written: false, record: attestation('a1') });
    await store.insertAttestation(attestation('a2', { compliant: false, acted_at: T0 + 1 }));
    const listed = await store.listAttestations('ws_1', REF);
    expect(listed).toEqual([attestation('a1'), attestation('a2', { compliant: false, acted_at: T0 + 1 })]);
    expect(await store.listAttestations('ws_2', REF)).toEqual([]);
  });
});
