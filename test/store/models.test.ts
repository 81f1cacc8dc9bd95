// Fitted models: the fit cache by fit key, per-workspace refs, and refit links.
import { expect, it } from 'vitest';
import type { NewModel } from '../../host/store/index.ts';
import { describeStores, T0, text } from './helpers.ts';

const model = (over: Partial<NewModel> = {}): NewModel => ({
  model_ref: 'mr1_' + 'a'.repeat(32),
  workspace_id: 'ws_1',
  fit_key: 'fk_1',
  record_hash: 'rh_1',
  bytes: Buffer.from('model-bytes'),
  meta: '{"state":"answered"}',
  created_at: T0,
  ...over,
});

describeStores('models', ({ openStore, newPlace }) => {
  it('puts a model and gets it by ref within its workspace', async () => {
    const store = await openStore();
    const put = await store.putModel(model());
    expect(put).toMatchObject({ model_ref: model().model_ref, workspace_id: 'ws_1', fit_key: 'fk_1', refit_of: null, linked_at: T0 });
    const got = await store.getModelByRef('ws_1', model().model_ref);
    expect(text(got!.bytes)).toBe('model-bytes');
    expect(got!.meta).toBe('{"state":"answered"}');
    expect(await store.getModelByRef('ws_2', model().model_ref)).toBeNull();
  });

  it('finds a fit by fit key from any workspace, and links it for the second workspace', async () => {
    const store = await openStore();
    await store.putModel(model());
    const fit = await store.getModelByFitKey('fk_1');
    expect(fit).toMatchObject({ model_ref: model().model_ref, record_hash: 'rh_1', created_at: T0 });
    expect(await store.getModelByFitKey('fk_none')).toBeNull();
    await store.putModel(model({ workspace_id: 'ws_2', created_at: T0 + 7 }));
    expect(await store.getModelByRef('ws_2', model().model_ref)).toMatchObject({ linked_at: T0 + 7, created_at: T0 });
  });

  it('keeps the first bytes when the same ref is put again', async () => {
    const store = await openStore();
    await store.putModel(model());
    await store.putModel(model({ bytes: Buffer.from('other') }));
    expect(text((await store.getModelByRef('ws_1', model().model_ref))!.bytes)).toBe('model-bytes');
  });

  it('links refit_of on put and with linkRefit', async () => {
    const store = await openStore();
    const old = 'mr1_' + 'b'.repeat(32);
    expect((await store.putModel(model({ refit_of: old }))).refit_of).toBe(old);
    expect((await store.putModel(model())).refit_of).toBe(old);
    const newer = 'mr1_' + 'c'.repeat(32);
    expect(await store.linkRefit('ws_1', model().model_ref, newer)).toBe(true);
    expect(await store.linkRefit('ws_2', model().model_ref, newer)).toBe(false);
    expect((await store.getModelByRef('ws_1', model().model_ref))!.refit_of).toBe(newer);
  });

  it('keeps a drift report per workspace on the refit link, for the same shared model_ref', async () => {
    const store = await openStore();
    const base = 'mr1_' + 'b'.repeat(32);
    const ref = model().model_ref;
    await store.putModel(model());
    await store.putModel(model({ workspace_id: 'ws_2' }));
    expect(await store.saveDriftReport('ws_1', ref, base, '{"pattern":"unchanged"}')).toBe(true);
    expect(await store.getDriftReport('ws_2', ref)).toBeNull();
    expect(await store.saveDriftReport('ws_2', ref, base, '{"pattern":"changed"}')).toBe(true);
    expect(await store.getDriftReport('ws_1', ref)).toEqual({ refit_of: base, report: '{"pattern":"unchanged"}' });
    expect(await store.getDriftReport('ws_2', ref)).toEqual({ refit_of: base, report: '{"pattern":"changed"}' });
    expect((await store.getModelByRef('ws_2', ref))!.refit_of).toBe(base);
    // a workspace never given the model_ref cannot attach a report to it
    expect(await store.saveDriftReport('ws_3', ref, base, '{}')).toBe(false);
    expect(await store.getDriftReport('ws_3', ref)).toBeNull();
  });

  it('drops a drift report when refit_of changes, and keeps it when it is linked again to the same one', async () => {
    const store = await openStore();
    const [b, c] = ['mr1_' + 'b'.repeat(32), 'mr1_' + 'c'.repeat(32)];
    const ref = model().model_ref;
    await store.putModel(model());
    await store.saveDriftReport('ws_1', ref, b, '{"r":"b"}');
    await store.linkRefit('ws_1', ref, b);
    await store.putModel(model({ refit_of: b }));
    await store.putModel(model());
    expect(await store.getDriftReport('ws_1', ref)).toEqual({ refit_of: b, report: '{"r":"b"}' });
    await store.linkRefit('ws_1', ref, c);
    expect(await store.getDriftReport('ws_1', ref)).toBeNull();
    await store.saveDriftReport('ws_1', ref, c, '{"r":"c"}');
    await store.putModel(model({ refit_of: b }));
    expect(await store.getDriftReport('ws_1', ref)).toBeNull();
  });

  it('keeps a drift report as long as the link: a sweep long after does not touch it', async () => {
    const store = await openStore();
    const base = 'mr1_' + 'b'.repeat(32);
    await store.putModel(model());
    await store.saveDriftReport('ws_1', model().model_ref, base, '{"pattern":"changed"}');
    await store.sweep(T0 + 30 * 24 * 3_600_000);
    expect(await store.getDriftReport('ws_1', model().model_ref)).toEqual({ refit_of: base, report: '{"pattern":"changed"}' });
  });

  it('keeps models across a reopen', async () => {
    const dir = await newPlace();
    const a = await openStore(dir);
    await a.putModel(model());
    await a.close();
    const b = await openStore(dir);
    expect(text((await b.getModelByRef('ws_1', model().model_ref))!.bytes)).toBe('model-bytes');
  });
});
