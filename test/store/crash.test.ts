// A process killed mid-write leaves whole transactions only, and the store reopens cleanly.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { openSqliteClient } from '../../host/store/sqlite.ts';
import { describeStores, type Place } from './helpers.ts';

const WRITER = path.join(import.meta.dirname, 'crash-writer.ts');

function runAndKill(place: Place, afterBatches: number): Promise<void> {
  const where = place.dialect === 'sqlite' ? place.dir : place.url;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, where], { stdio: ['ignore', 'pipe', 'pipe'] });
    let lines = 0;
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      lines += chunk.toString().split('\n').length - 1;
      if (lines >= afterBatches) child.kill('SIGKILL');
    });
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`writer exited: ${err}`))));
  });
}

describeStores('crash safety', ({ openStore, newPlace }) => {
  it('keeps every outcome batch whole after repeated kill -9, and reopens', async () => {
    const place = await newPlace();
    for (const batches of [5, 12, 20]) await runAndKill(place, batches);
    const store = await openStore(place);
    const outcomes = await store.listOutcomes('ws_1', 'mr1_crash');
    expect(outcomes.length).toBeGreaterThanOrEqual((5 + 12 + 20) * 50);
    expect(outcomes.length % 50).toBe(0);
    const ds = await store.getDataset('ws_1', 'ds_crash');
    let rows = 0;
    let seq = 0;
    for await (const p of store.listDatasetPieces('ws_1', 'ds_crash')) {
      expect(p.seq).toBe(++seq);
      rows += p.row_count;
    }
    expect(ds?.row_count).toBe(rows);
    // The reopened store still writes.
    await store.writeOutcomes([{ ...outcomes[0]!, event_id: 'after' }]);
    await store.close();
    if (place.dialect === 'sqlite') {
      const db = openSqliteClient(path.join(place.dir, 'store.sqlite'));
      expect(await db.get('PRAGMA integrity_check')).toEqual({ integrity_check: 'ok' });
      await db.close();
    }
  });
});
