// A table no ask could use is refused when it is stored, by add-dataset (rows, csv) and by the
// presigned upload alike: a header with no data rows, or a single column (a file separated by semicolons,
// tabs or bars reads as one column), with a 422 naming the field and saying what to send.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.ts';

let svc: TestService;
let key: string;
let workspaceId: string;
beforeAll(async () => {
  svc = await startTestService();
  ({ key, workspaceId } = await svc.liveCaller('usable'));
});
afterAll(() => svc?.close());

async function upload(csv: string): Promise<{ status: number; body: any; datasetId: string }> {
  const add = await svc.post('/v1/add-dataset', { upload: true }, key);
  const res = await fetch(add.body.upload_url, { method: 'PUT', headers: { 'content-type': 'text/csv' }, body: csv });
  return { status: res.status, body: await res.json(), datasetId: add.body.dataset_id };
}

describe('refused when stored', () => {
  it.each([
    // the CSV reader names header-only files and other separators itself (table/csv.ts, shared with the page)
    ['a header alone (csv)', { csv: 'id,x,churned\n' }, 'csv', /header row .*but no data rows/],
    ['a header and blank lines (csv)', { csv: 'id,x,churned\n\n  \n' }, 'csv', /no data rows/],
    ['bars (csv)', { csv: 'id|x|churned\na|1|yes\nb|2|no\n' }, 'csv', /pipe-separated/],
    ['tabs (csv)', { csv: 'id\tx\tchurned\na\t1\tyes\n' }, 'csv', /tab-separated/],
    ['one column (csv)', { csv: 'id\na\nb\n' }, 'csv', /single column \("id"\).*nothing was stored/],
    ['one column (rows)', { rows: [{ id: 'a' }, { id: 'b' }] }, 'rows', /single column.*nothing was stored/],
  ])('add-dataset: %s is 422 naming the field', async (_name, body, field, detail) => {
    const r = await svc.post('/v1/add-dataset', body, key);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'invalid_request', field });
    expect(r.body.detail).toMatch(detail);
    expect(r.body.remedy).toMatch(/comma|rows|column/);
  });

  it("a piece with no data rows appended to an open dataset is refused too; its columns are the dataset's", async () => {
    const made = await svc.post('/v1/add-dataset', { csv: 'id,x,churned\na,1,yes\n' }, key);
    expect(made.status).toBe(200);
    const empty = await svc.post('/v1/add-dataset', { dataset_id: made.body.dataset_id, csv: 'id,x,churned\n' }, key);
    expect(empty.status).toBe(422);
    expect(empty.body.detail).toMatch(/no data rows/);
    const more = await svc.post('/v1/add-dataset', { dataset_id: made.body.dataset_id, csv: 'id,x,churned\nb,2,no\n' }, key);
    expect(more.body).toMatchObject({ status: 'open', rows: 2 });
  });

  it.each([
    ['a header alone', 'id,x,churned\n', /no data rows/],
    ['tabs', 'id\tx\tchurned\na\t1\tyes\n', /tab-separated/],
  ])('upload: %s is 422 and the dataset stays awaiting its upload', async (_name, csv, detail) => {
    const r = await upload(csv);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'body' });
    expect(r.body.detail).toMatch(detail);
    const ds = await svc.services.store.getDataset(workspaceId, r.datasetId);
    expect(ds?.status).toBe('awaiting_upload');
  });

  it('a semicolon-separated export is stored with its columns, inline and uploaded', async () => {
    const csv = 'id;x;churned\na;1,5;yes\nb;2;no\n';
    const inline = await svc.post('/v1/add-dataset', { csv }, key);
    expect(inline.status).toBe(200);
    expect(inline.body).toMatchObject({ rows: 2 });
    const up = await upload(csv);
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ rows: 2 });
  });

  it('a usable table of two columns and one row is stored', async () => {
    expect((await svc.post('/v1/add-dataset', { csv: 'id,x\na,1\n' }, key)).status).toBe(200);
    expect((await upload('id,x\na,1\n')).status).toBe(200);
  });
});
