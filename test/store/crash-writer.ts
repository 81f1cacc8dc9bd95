// Child process for crash.test.ts: writes outcome batches and dataset pieces until it is killed.
// argv[2]: the SQLite directory, or a postgres:// URL.
import { openPostgresStore, openSqliteStore } from '../../host/store/index.ts';

const BATCH = 50;
const where = process.argv[2]!;
const store = /^postgres(ql)?:/.test(where) ? await openPostgresStore(where) : await openSqliteStore(where);
const run = process.pid; // event ids stay unique across the rounds of one test
if (!(await store.getDataset('ws_1', 'ds_crash'))) {
  await store.createDataset({
    id: 'ds_crash',
    workspace_id: 'ws_1',
    status: 'open',
    columns: null,
    row_count: 0,
    filename: null,
    created_at: 0,
    last_used_at: 0,
  });
}
for (let b = 0; ; b++) {
  const items = Array.from({ length: BATCH }, (_, i) => ({
    workspace_id: 'ws_1',
    model_ref: 'mr1_crash',
    entity_id: `c${i}`,
    outcome: (i % 2) as 0 | 1,
    observed_at: b,
    event_id: `r${run}_b${b}_${i}`,
    created_at: b,
  }));
  await store.writeOutcomes(items);
  await store.appendDatasetPiece({ workspace_id: 'ws_1', dataset_id: 'ds_crash', content: 'x'.repeat(4096), row_count: 10, at: b });
  process.stdout.write(`${b}\n`);
}
