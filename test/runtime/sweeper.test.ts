// Retention (docs/reference/datasets.md#lifecycle, docs/reference/limits.md#limits): a stored dataset goes 24 hours after its last use; use (an ask's read, an
// append) restarts the clock. The clock is injected, so no test waits a day.
import fs from 'node:fs';
import path from 'node:path';
import { startTestService, type TestService } from '../helpers/service.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStoredRecord } from '../../host/operations/datasets/read.ts';
import { startSweeper, sweepOnce } from '../../host/runtime/sweeper.ts';
import { collectable, post } from '../operations/datasets/helpers.ts';

const HOUR = 3_600_000;
let svc: TestService;
let a: { key: string; workspaceId: string };

beforeAll(async () => {
  svc = await startTestService({}, { manualClock: true });
  a = await svc.liveCaller('sweep');
});
afterAll(() => svc?.close());

const add = (body: unknown) => post(svc.url, '/v1/add-dataset', body, a.key);
const exists = async (id: string) => (await svc.services.store.getDataset(a.workspaceId, id)) !== null;

describe('the sweeper', () => {
  it('deletes a dataset 24 hours after its last use, and a use restarts the 24 hours', async () => {
    const idle = (await add({ csv: 'id,x\na,1\n' })).body.dataset_id;
    const used = (await add({ csv: 'id,x\na,1\n' })).body.dataset_id;
    svc.clock.now += 23 * HOUR;
    await sweepOnce(svc.services);
    expect(await exists(idle)).toBe(true);
    await loadStoredRecord(svc.ctx(a.workspaceId), used, 'data.dataset_id'); // an ask's read

    svc.clock.now += HOUR + 1;
    await sweepOnce(svc.services);
    expect(await exists(idle)).toBe(false);
    expect(await exists(used)).toBe(true);
    expect((await add({ dataset_id: idle, csv: 'id,x\nb,2\n' })).body.code).toBe('unknown_dataset');

    // `used` was last used 1 hour + 1 ms ago.
    svc.clock.now += 22 * HOUR;
    await sweepOnce(svc.services);
    expect(await exists(used)).toBe(true);
    svc.clock.now += HOUR;
    await sweepOnce(svc.services);
    expect(await exists(used)).toBe(false);
    await expect(loadStoredRecord(svc.ctx(a.workspaceId), used, 'data.dataset_id')).rejects.toMatchObject({ code: 'unknown_dataset' });
  });

  it("a swept dataset's parsed table kept in memory for asks goes too", async () => {
    const id = (await add({ csv: 'id,x\na,1\n' })).body.dataset_id;
    const table = new WeakRef((await loadStoredRecord(svc.ctx(a.workspaceId), id, 'data.dataset_id')).table);
    expect(await collectable(table)).toBe(false);
    svc.clock.now += 25 * HOUR;
    await sweepOnce(svc.services);
    expect(await exists(id)).toBe(false);
    expect(await collectable(table)).toBe(true);
  });

  it('an append counts as use', async () => {
    const id = (await add({ csv: 'id,x\na,1\n' })).body.dataset_id;
    svc.clock.now += 20 * HOUR;
    expect((await add({ dataset_id: id, csv: 'id,x\nb,2\n' })).status).toBe(200);
    svc.clock.now += 20 * HOUR;
    await sweepOnce(svc.services);
    expect(await exists(id)).toBe(true);
  });

  it('runs on its own timer until stopped', async () => {
    const id = (await add({ csv: 'id,x\na,1\n' })).body.dataset_id;
    svc.clock.now += 25 * HOUR;
    const stop = startSweeper(svc.services, 10);
    try {
      for (let i = 0; i < 200 && (await exists(id)); i++) await new Promise((r) => setTimeout(r, 10));
      expect(await exists(id)).toBe(false);
    } finally {
      stop();
    }
  });

  it('removes upload files a crashed process left behind, and only old ones', async () => {
    const dir = path.join(svc.dataDir, 'uploads');
    fs.mkdirSync(dir, { recursive: true });
    const old = path.join(dir, 'ds_old.abc.part');
    const fresh = path.join(dir, 'ds_new.abc.part');
    fs.writeFileSync(old, 'id\n');
    fs.writeFileSync(fresh, 'id\n');
    const threeHoursAgo = (Date.now() - 3 * HOUR) / 1000;
    fs.utimesSync(old, threeHoursAgo, threeHoursAgo);
    await sweepOnce(svc.services);
    expect(fs.readdirSync(dir)).toEqual(['ds_new.abc.part']);
    fs.rmSync(fresh);
  });
});
