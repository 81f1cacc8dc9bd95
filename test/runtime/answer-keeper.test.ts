// The batching writer of answers kept for the track record (host/runtime/answer-keeper.ts) on a real
// SQLite store: nothing waits on a write, a flush writes every pending answer at once, a failed write keeps
// its answers for the next, close writes the rest; and a service that stops writes what it still held.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AnswerKeeper } from '../../host/runtime/answer-keeper.ts';
import { openSqliteStore, toldAnswersOf, type AnsweredCase, type Store } from '../../host/store/index.ts';
import { openSqliteClient } from '../../host/store/sqlite.ts';
import { createLiveKey } from '../../host/runtime/keys.ts';
import { getSample } from '../../samples/catalog.ts';
import { startTestService, tempDir } from '../helpers/service.ts';

const REF = 'mr1_' + 'a'.repeat(32);
const told = (entity_id: string, answer_id: string): AnsweredCase => ({
  workspace_id: 'ws',
  namespace: '',
  model_ref: REF,
  entity_id,
  answer_id,
  issued_at: Date.UTC(2026, 2, 1),
  p: 0.5,
  band: null,
  level: null,
});

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('AnswerKeeper', () => {
  it('writes on flush, keeps what a failed write could not store, and writes the rest on close', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const store = await openSqliteStore(dir);
    stores.push(store);
    const errors: unknown[] = [];
    const keeper = new AnswerKeeper(store, (e) => errors.push(e), 60_000);
    keeper.keep(toldAnswersOf([told('c1', 'an_1'), told('c2', 'an_1')]));
    keeper.keep(toldAnswersOf([told('c1', 'an_2')]));
    keeper.keep([]);
    expect((await store.keptAnswers('ws', REF)).kept).toBe(0); // nothing written until a flush
    await keeper.flush();
    expect((await store.keptAnswers('ws', REF)).kept).toBe(3);

    // a write that fails (the table is away for a moment) loses nothing
    const raw = openSqliteClient(path.join(dir, 'store.sqlite'));
    await raw.exec('ALTER TABLE kept_answers RENAME TO kept_answers_away');
    keeper.keep(toldAnswersOf([told('c3', 'an_3')]));
    await keeper.flush();
    expect(errors).toHaveLength(1);
    await raw.exec('ALTER TABLE kept_answers_away RENAME TO kept_answers');
    await raw.close();
    keeper.keep(toldAnswersOf([told('c4', 'an_4')]));
    await keeper.close();
    expect((await store.keptAnswers('ws', REF)).kept).toBe(5);
  });

  it('a service that stops writes the answers it still held', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const first = await startTestService({ dataDir: dir });
    const { key, workspace } = await createLiveKey(first.services.store, { workspaceName: 'close', now: Date.now() });
    const r = await first.post('/v1/ask', { ...getSample('saas_churn')!.try, cases: { ids: ['cust_0001', 'cust_0002'] } }, key);
    const ref = r.body.answers.q.model_ref;
    await first.close(); // no flush before: close writes them
    const second = await startTestService({ dataDir: dir });
    try {
      expect((await second.services.store.keptAnswers(workspace.id, ref)).kept).toBe(2);
    } finally {
      await second.close();
    }
  });
});
