// svc_add_dataset and svc_delete_dataset over HTTP, and reading a stored dataset back (docs/reference/datasets.md#lifecycle, docs/reference/datasets.md#add-dataset, docs/reference/datasets.md#delete).
import { startTestService, type TestService } from '../../helpers/service.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStoredRecord } from '../../../host/operations/datasets/read.ts';
import { contentHash } from '../../../host/table/hash.ts';
import { collectable, post } from './helpers.ts';
import { freshSchema } from '../../helpers/postgres-database.ts';

let svc: TestService;
let a: { key: string; workspaceId: string };
let b: { key: string; workspaceId: string };

beforeAll(async () => {
  svc = await startTestService({}, { manualClock: true });
  a = await svc.liveCaller('a');
  b = await svc.liveCaller('b');
});
afterAll(() => svc?.close());

const add = (body: unknown, key = a.key) => post(svc.url, '/v1/add-dataset', body, key);

async function threePieces(): Promise<string> {
  const first = await add({
    rows: [
      { id: 'r1', x: 1, y: 'yes' },
      { id: 'r2', x: 2, y: 'no' },
    ],
    filename: 'part-1.json',
  });
  expect(first.status).toBe(200);
  const id = first.body.dataset_id;
  expect((await add({ dataset_id: id, csv: 'y,id,x\nno,r3,3\nyes,r4,4\nno,r5,5\n' })).status).toBe(200);
  const third = await add({ dataset_id: id, rows: [{ x: 6, id: 'r6', y: 'yes' }] });
  expect(third.status).toBe(200);
  expect(third.body).toEqual({ dataset_id: id, status: 'open', rows: 6, columns: ['id', 'x', 'y'] });
  return id;
}

describe('POST /v1/add-dataset', () => {
  it('stores rows as an open dataset with a ds_ id of 26 base32 chars', async () => {
    const r = await add({ rows: [{ id: 'a', x: 1 }] });
    expect(r.status).toBe(200);
    expect(r.body.dataset_id).toMatch(/^ds_[a-z2-7]{26}$/);
    expect(r.body).toMatchObject({ status: 'open', rows: 1, columns: ['id', 'x'] });
  });

  it('reads three pieces back as one table in order, columns aligned by name', async () => {
    const id = await threePieces();
    const { table } = await loadStoredRecord(svc.ctx(a.workspaceId), id, 'data.dataset_id');
    expect(table.columns).toEqual(['id', 'x', 'y']);
    expect(table.rowCount).toBe(6);
    expect(table.data[0]).toEqual(['r1', 'r2', 'r3', 'r4', 'r5', 'r6']);
    expect(table.data[1]).toEqual([1, 2, '3', '4', '5', 6]);
    expect(table.data[2]).toEqual(['yes', 'no', 'no', 'yes', 'no', 'yes']);
  });

  it('hashes a one-piece dataset exactly like the same csv sent inline', async () => {
    const csv = 'id,x\na,1\nb,2\n';
    const { body } = await add({ csv });
    const stored = await loadStoredRecord(svc.ctx(a.workspaceId), body.dataset_id, 'data.dataset_id');
    expect(stored.contentHash).toBe(contentHash(csv));
  });

  it('gives a different hash when the same rows are cut into pieces differently', async () => {
    const one = (await add({ csv: 'id,x\na,1\nb,2\nc,3\n' })).body.dataset_id;
    const two = (await add({ csv: 'id,x\na,1\n' })).body.dataset_id;
    await add({ dataset_id: two, csv: 'id,x\nb,2\nc,3\n' });
    const three = (await add({ csv: 'id,x\na,1\nb,2\n' })).body.dataset_id;
    await add({ dataset_id: three, csv: 'id,x\nc,3\n' });
    const ctx = svc.ctx(a.workspaceId);
    const hashes = await Promise.all([one, two, three].map(async (id) => (await loadStoredRecord(ctx, id, 'f')).contentHash));
    expect(new Set(hashes).size).toBe(3);
    expect((await loadStoredRecord(ctx, two, 'f')).table.data[0]).toEqual(['a', 'b', 'c']);
  });

  it('refuses a piece with different columns with 422 columns_mismatch naming them', async () => {
    const id = (await add({ csv: 'id,x,y\na,1,2\n' })).body.dataset_id;
    const r = await add({ dataset_id: id, rows: [{ id: 'b', x: 1, z: 3 }] });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'columns_mismatch', field: 'rows', missing_columns: ['y'], extra_columns: ['z'] });
    expect(r.body.detail).toContain('"y"');
    expect((await add({ dataset_id: id, csv: 'x,y,id\n1,2,c\n' })).body.rows).toBe(2);
  });

  it("answers another workspace's dataset as 404 unknown_dataset", async () => {
    const id = (await add({ csv: 'id,x\na,1\n' })).body.dataset_id;
    const r = await add({ dataset_id: id, csv: 'id,x\nb,2\n' }, b.key);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 'unknown_dataset', field: 'dataset_id' });
    await expect(loadStoredRecord(svc.ctx(b.workspaceId), id, 'data.dataset_id')).rejects.toMatchObject({
      code: 'unknown_dataset',
      field: 'data.dataset_id',
    });
    const del = await post(svc.url, '/v1/delete-dataset', { dataset_id: id }, b.key);
    expect(del.body.code).toBe('unknown_dataset');
  });

  it('seals on the first read: a later piece is 409 dataset_sealed', async () => {
    const id = (await add({ csv: 'id,x\na,1\n' })).body.dataset_id;
    await loadStoredRecord(svc.ctx(a.workspaceId), id, 'data.dataset_id');
    const r = await add({ dataset_id: id, csv: 'id,x\nb,2\n' });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'dataset_sealed', field: 'dataset_id' });
    // A sealed dataset still reads (every ask seals again).
    expect((await loadStoredRecord(svc.ctx(a.workspaceId), id, 'data.dataset_id')).table.rowCount).toBe(1);
  });

  it('refuses a test key with 403 test_key_samples_only', async () => {
    const r = await add({ rows: [{ id: 'a' }] }, await svc.testKey());
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('test_key_samples_only');
  });

  it('validates the body: two sources, a bad csv, a bad dataset_id', async () => {
    expect((await add({ rows: [{ id: 'a' }], csv: 'id\na\n' })).body).toMatchObject({ code: 'invalid_request', field: 'csv' });
    expect((await add({ csv: 'id,x\na\n' })).body).toMatchObject({ code: 'invalid_request', field: 'csv' });
    expect((await add({ dataset_id: 'ds_short', csv: 'id\na\n' })).body).toMatchObject({ code: 'invalid_request', field: 'dataset_id' });
    expect((await add({ dataset_id: 'ds_' + 'a'.repeat(26), csv: 'id\na\n' })).body).toMatchObject({ code: 'unknown_dataset' });
  });

  it('an upload URL dataset is awaiting_upload and cannot be asked about or appended to', async () => {
    const r = await add({ upload: true, filename: 'big.csv' });
    expect(r.body).toMatchObject({ status: 'awaiting_upload', rows: null, columns: null, upload_method: 'PUT', expires_in: 3600 });
    expect(r.body.upload_url).toMatch(new RegExp(`^${svc.services.config.baseUrl}/v1/uploads/[A-Za-z0-9_.-]+$`));
    await expect(loadStoredRecord(svc.ctx(a.workspaceId), r.body.dataset_id, 'data.dataset_id')).rejects.toMatchObject({
      code: 'invalid_request',
      field: 'data.dataset_id',
      message: expect.stringContaining('upload not finished'),
    });
    expect((await add({ dataset_id: r.body.dataset_id, csv: 'id\na\n' })).body).toMatchObject({
      code: 'invalid_request',
      field: 'dataset_id',
    });
    expect((await add({ dataset_id: r.body.dataset_id, upload: true })).body).toMatchObject({ code: 'invalid_request', field: 'upload' });
  });
});

describe('POST /v1/delete-dataset', () => {
  it('deletes at once; the id then answers unknown_dataset everywhere', async () => {
    const id = (await add({ csv: 'id,x\na,1\n' })).body.dataset_id;
    const r = await post(svc.url, '/v1/delete-dataset', { dataset_id: id }, a.key);
    expect(r).toEqual({ status: 200, body: { dataset_id: id, deleted: true } });
    expect((await add({ dataset_id: id, csv: 'id,x\nb,2\n' })).status).toBe(404);
    await expect(loadStoredRecord(svc.ctx(a.workspaceId), id, 'data.dataset_id')).rejects.toMatchObject({ code: 'unknown_dataset' });
    expect((await post(svc.url, '/v1/delete-dataset', { dataset_id: id }, a.key)).status).toBe(404);
  });

  it('removes the rows now (docs/reference/datasets.md#delete): the parsed table kept in memory for asks goes too', async () => {
    const id = (await add({ csv: 'id,x\na,1\nb,2\n' })).body.dataset_id;
    // Only a weak reference leaves this function, so the cache of sealed tables is all that can hold it.
    const table = new WeakRef((await loadStoredRecord(svc.ctx(a.workspaceId), id, 'data.dataset_id')).table);
    expect(await collectable(table)).toBe(false);
    expect((await post(svc.url, '/v1/delete-dataset', { dataset_id: id }, a.key)).status).toBe(200);
    expect(await collectable(table)).toBe(true);
  });

  it('deleted through another node of a PostgreSQL store, it is unknown here at once, and its rows leave this node too', async () => {
    const databaseUrl = await freshSchema();
    const here = await startTestService({ databaseUrl });
    const there = await startTestService({ databaseUrl });
    try {
      const k = await here.liveCaller('two-nodes');
      const id = (await post(here.url, '/v1/add-dataset', { csv: 'id,x\na,1\nb,2\n' }, k.key)).body.dataset_id;
      const table = new WeakRef((await loadStoredRecord(here.ctx(k.workspaceId), id, 'data.dataset_id')).table);
      expect(await collectable(table)).toBe(false);
      expect((await post(there.url, '/v1/delete-dataset', { dataset_id: id }, k.key)).status).toBe(200);
      await expect(loadStoredRecord(here.ctx(k.workspaceId), id, 'data.dataset_id')).rejects.toMatchObject({ code: 'unknown_dataset' });
      expect(await collectable(table)).toBe(true);
    } finally {
      await here.close();
      await there.close();
    }
  });
});

describe('asking about a stored dataset', () => {
  it('answers from the pieces, seals the dataset, and reuses the fit of the same inline csv', async () => {
    const header = 'id,x,churned';
    const lines = Array.from({ length: 400 }, (_, i) => `c${i},${i % 10},${i % 10 >= 6 ? 'yes' : 'no'}`);
    const csv = `${header}\n${lines.join('\n')}\n`;
    const ask = (data: unknown) =>
      post(
        svc.url,
        '/v1/ask',
        {
          data,
          entity_column: 'id',
          subject_kind: 'org',
          questions: { q: { type: 'yesno', outcome_column: 'churned' } },
          cases: { ids: ['c1'] },
        },
        a.key,
      );
    const inline = await ask({ csv });
    expect(inline.status).toBe(200);
    const id = (await add({ csv })).body.dataset_id;
    const stored = await ask({ dataset_id: id });
    expect(stored.status).toBe(200);
    expect(stored.body.dataset_id).toBe(id);
    expect(stored.body.record.content_hash).toBe(inline.body.record.content_hash);
    expect(stored.body.fits_run).toBe(0);
    expect((await add({ dataset_id: id, csv })).status).toBe(409);
  });
});
