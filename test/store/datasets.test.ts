// Stored datasets: pieces in order, sealing, touching, deleting, and isolation between workspaces.
import { expect, it } from 'vitest';
import type { DatasetRecord, Store } from '../../host/store/index.ts';
import { describeStores, HOUR, T0, text } from './helpers.ts';

const dataset = (id: string, workspace_id: string, over: Partial<DatasetRecord> = {}): DatasetRecord => ({
  id,
  workspace_id,
  status: 'open',
  columns: null,
  row_count: 0,
  filename: null,
  created_at: T0,
  last_used_at: T0,
  ...over,
});

async function pieces(store: Store, ws: string, id: string) {
  const out: Array<{ seq: number; row_count: number; content: string }> = [];
  for await (const p of store.listDatasetPieces(ws, id)) out.push({ ...p, content: text(p.content) });
  return out;
}

describeStores('datasets', ({ openStore, newPlace }) => {
  it('creates and gets a dataset only within its workspace', async () => {
    const store = await openStore();
    const d = await store.createDataset(dataset('ds_a', 'ws_1', { filename: 'x.csv' }));
    expect(await store.getDataset('ws_1', 'ds_a')).toEqual(d);
    expect(await store.getDataset('ws_2', 'ds_a')).toBeNull();
  });

  it('appends pieces in order and streams them back by seq', async () => {
    const store = await openStore();
    await store.createDataset(dataset('ds_a', 'ws_1'));
    const r1 = await store.appendDatasetPiece({
      workspace_id: 'ws_1',
      dataset_id: 'ds_a',
      seq: 1,
      content: 'a,b\n1,2\n',
      row_count: 1,
      columns: '["a","b"]',
      at: T0 + 1,
    });
    const r2 = await store.appendDatasetPiece({
      workspace_id: 'ws_1',
      dataset_id: 'ds_a',
      content: Buffer.from('3,4\n5,6\n'),
      row_count: 2,
      at: T0 + 2,
    });
    expect(r1).toMatchObject({ ok: true, seq: 1 });
    expect(r2).toMatchObject({ ok: true, seq: 2, dataset: { row_count: 3, columns: '["a","b"]', last_used_at: T0 + 2 } });
    expect(await pieces(store, 'ws_1', 'ds_a')).toEqual([
      { seq: 1, row_count: 1, content: 'a,b\n1,2\n' },
      { seq: 2, row_count: 2, content: '3,4\n5,6\n' },
    ]);
  });

  it('refuses a piece out of order, to an unknown dataset, or from another workspace', async () => {
    const store = await openStore();
    await store.createDataset(dataset('ds_a', 'ws_1'));
    const piece = { workspace_id: 'ws_1', dataset_id: 'ds_a', content: 'x', row_count: 1, at: T0 };
    expect(await store.appendDatasetPiece({ ...piece, seq: 2 })).toEqual({ ok: false, reason: 'out_of_order' });
    expect(await store.appendDatasetPiece({ ...piece, dataset_id: 'ds_b' })).toEqual({ ok: false, reason: 'unknown_dataset' });
    expect(await store.appendDatasetPiece({ ...piece, workspace_id: 'ws_2' })).toEqual({ ok: false, reason: 'unknown_dataset' });
    expect(await pieces(store, 'ws_2', 'ds_a')).toEqual([]);
  });

  it('completes an upload: the piece and the ready status land together', async () => {
    const store = await openStore();
    await store.createDataset(dataset('ds_u', 'ws_1', { status: 'awaiting_upload' }));
    expect(await store.sealDataset('ws_1', 'ds_u', T0)).toBe(false);
    const r = await store.appendDatasetPiece({
      workspace_id: 'ws_1',
      dataset_id: 'ds_u',
      content: 'a\n1\n',
      row_count: 1,
      columns: '["a"]',
      status: 'ready',
      at: T0,
    });
    expect(r).toMatchObject({ ok: true, dataset: { status: 'ready', row_count: 1 } });
    const again = await store.appendDatasetPiece({ workspace_id: 'ws_1', dataset_id: 'ds_u', content: 'x', row_count: 1, at: T0 });
    expect(again).toEqual({ ok: false, reason: 'dataset_sealed' });
  });

  it('seals an open dataset, after which pieces are refused; sealing again is fine', async () => {
    const store = await openStore();
    await store.createDataset(dataset('ds_a', 'ws_1'));
    expect(await store.sealDataset('ws_2', 'ds_a', T0 + 5)).toBe(false);
    expect(await store.sealDataset('ws_1', 'ds_a', T0 + 5)).toBe(true);
    expect(await store.sealDataset('ws_1', 'ds_a', T0 + 6)).toBe(true);
    expect(await store.getDataset('ws_1', 'ds_a')).toMatchObject({ status: 'sealed', last_used_at: T0 + 6 });
    const r = await store.appendDatasetPiece({ workspace_id: 'ws_1', dataset_id: 'ds_a', content: 'x', row_count: 1, at: T0 });
    expect(r).toEqual({ ok: false, reason: 'dataset_sealed' });
  });

  it('touches last_used_at within the workspace only', async () => {
    const store = await openStore();
    await store.createDataset(dataset('ds_a', 'ws_1'));
    expect(await store.touchDataset('ws_2', 'ds_a', T0 + 9)).toBe(false);
    expect(await store.touchDataset('ws_1', 'ds_a', T0 + 9)).toBe(true);
    expect((await store.getDataset('ws_1', 'ds_a'))?.last_used_at).toBe(T0 + 9);
  });

  it('deletes a dataset and its pieces at once, never another workspace’s', async () => {
    const store = await openStore();
    await store.createDataset(dataset('ds_a', 'ws_1'));
    await store.appendDatasetPiece({ workspace_id: 'ws_1', dataset_id: 'ds_a', content: 'x', row_count: 1, at: T0 });
    expect(await store.deleteDataset('ws_2', 'ds_a')).toBe(false);
    expect(await store.deleteDataset('ws_1', 'ds_a')).toBe(true);
    expect(await store.deleteDataset('ws_1', 'ds_a')).toBe(false);
    expect(await store.getDataset('ws_1', 'ds_a')).toBeNull();
    // A new dataset with the same id starts without the old pieces.
    await store.createDataset(dataset('ds_a', 'ws_1'));
    expect(await pieces(store, 'ws_1', 'ds_a')).toEqual([]);
  });

  it('deletes datasets unused before a cutoff and returns their ids', async () => {
    const store = await openStore();
    await store.createDataset(dataset('ds_old', 'ws_1', { last_used_at: T0 - 25 * HOUR }));
    await store.createDataset(dataset('ds_new', 'ws_1', { last_used_at: T0 - HOUR }));
    await store.appendDatasetPiece({ workspace_id: 'ws_1', dataset_id: 'ds_old', content: 'x', row_count: 1, at: T0 - 25 * HOUR });
    expect(await store.deleteDatasetsUnusedBefore(T0 - 24 * HOUR)).toEqual(['ds_old']);
    expect(await store.getDataset('ws_1', 'ds_old')).toBeNull();
    expect(await store.getDataset('ws_1', 'ds_new')).not.toBeNull();
  });

  it('keeps datasets and pieces across a reopen', async () => {
    const dir = await newPlace();
    const a = await openStore(dir);
    await a.createDataset(dataset('ds_a', 'ws_1'));
    await a.appendDatasetPiece({ workspace_id: 'ws_1', dataset_id: 'ds_a', content: 'a\n1\n', row_count: 1, at: T0 });
    await a.close();
    const b = await openStore(dir);
    expect(await pieces(b, 'ws_1', 'ds_a')).toEqual([{ seq: 1, row_count: 1, content: 'a\n1\n' }]);
  });
});
