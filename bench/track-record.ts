// The cost of keeping answers for the track record (additions 2.1), measured beside the ask it rides on:
// a 10,000-case yesno ask by model_ref (no fit) through a real service on loopback (SQLite), median of 7;
// then the keep alone (the same 10,000 rows as that ask keeps, one transaction of 500-row inserts) on a
// fresh SQLite store and a fresh PostgreSQL 15 database, median of 7 each. Run: `npx tsx bench/track-record.ts`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { startService } from '../host/main.ts';
import { createLiveKey } from '../host/operations/keys.ts';
import { answeredCasesOf } from '../host/operations/ask/keep-answers.ts';
import { openPostgresStore, openSqliteStore, type AnsweredCase, type Store } from '../host/store/index.ts';
import { createDatabase, postgresMissing, startPostgres } from '../test/helpers/postgres.ts';
import { churnRows } from '../test/helpers/churn.ts';
import { pairCalls, trackRecordOf } from '../host/operations/track-record-stats.ts';

const RUNS = 7;
const CASES = 10_000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timeKeep(store: Store, rows: AnsweredCase[]): Promise<number[]> {
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const fresh = rows.map((r) => ({ ...r, answer_id: `an_bench_${i}`, issued_at: r.issued_at + i }));
    const t = performance.now();
    await store.keepAnsweredCases(fresh);
    runs.push(performance.now() - t);
  }
  return runs;
}

/** The read side on the answers timeKeep left (RUNS answers of 10,000 cases) with every case reported: store read, pairing, statistics. */
async function timeRead(store: Store, rows: AnsweredCase[]): Promise<number[]> {
  const at = rows[0].issued_at + DAY_MS;
  await store.writeOutcomes(
    rows.map((r, i) => ({
      workspace_id: r.workspace_id,
      model_ref: r.model_ref,
      entity_id: r.entity_id,
      outcome: (i % 3 === 0 ? 1 : 0) as 0 | 1,
      observed_at: at,
      event_id: `e${i}`,
      created_at: at,
    })),
  );
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const outcomes = await store.listOutcomes(rows[0].workspace_id, rows[0].model_ref);
    const kept = await store.keptAnswers(rows[0].workspace_id, rows[0].model_ref);
    const { calls } = pairCalls(outcomes, kept.withOutcome);
    if (trackRecordOf(calls).overall.calls !== rows.length) throw new Error('every case should pair');
    runs.push(performance.now() - t);
  }
  return runs;
}
const DAY_MS = 86_400_000;

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-track-'));
  const running = await startService(
    { port: 0, dataDir: dir, pendingWaitMs: 120_000 },
    { hostname: '127.0.0.1', log: pino({ level: 'silent' }), env: {} },
  );
  const { key } = await createLiveKey(running.services.store, { workspaceName: 'bench', canReportOutcomes: true, now: Date.now() });
  const post = async (body: unknown) => {
    const res = await fetch(`${running.url}/v1/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });
    return (await res.json()) as any;
  };
  const fitRows = churnRows({ seed: 7, rows: 2000 });
  const fit = await post({
    data: { rows: fitRows },
    entity_column: 'customer_id',
    subject_kind: 'org',
    questions: { q: { type: 'yesno', outcome_column: 'churned' } },
    cases: { ids: ['c00001'] },
  });
  const modelRef = fit.answers.q.model_ref as string;
  const rows = churnRows({ seed: 303, rows: CASES, idPrefix: 'n' }).map(({ churned: _c, ...r }) => r);
  const ask = {
    entity_column: 'customer_id',
    subject_kind: 'org',
    questions: { q: { type: 'yesno', model_ref: modelRef } },
    cases: { rows },
  };
  await post(ask); // warm-up
  const askRuns: number[] = [];
  let answer: any;
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    answer = await post(ask);
    askRuns.push(performance.now() - t);
  }
  const kept = answeredCasesOf([{ type: 'yesno', built: { body: answer.answers.q, billable: 0, asked: 0 } }], {
    workspaceId: 'ws_bench',
    namespace: '',
    answerId: 'an_bench',
    issuedAt: Date.now(),
  });
  await running.close();

  const sqliteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-track-sqlite-'));
  const sqlite = await openSqliteStore(sqliteDir);
  const sqliteRuns = await timeKeep(sqlite, kept);
  const sqliteRead = await timeRead(sqlite, kept);
  await sqlite.close();

  let pgRuns: number[] | null = null;
  let pgRead: number[] | null = null;
  if (postgresMissing() === null) {
    const server = await startPostgres();
    try {
      const pgStore = await openPostgresStore(await createDatabase(server.url, 'bench'));
      pgRuns = await timeKeep(pgStore, kept);
      pgRead = await timeRead(pgStore, kept);
      await pgStore.close();
    } finally {
      await server.destroy();
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(sqliteDir, { recursive: true, force: true });
  const f = (xs: number[]) => `median ${median(xs).toFixed(1)} ms (runs ${xs.map((x) => x.toFixed(1)).join(', ')})`;
  console.log(`cases kept per ask: ${kept.length}`);
  console.log(`10,000-case yesno ask by model_ref, request to last byte (SQLite, keep included): ${f(askRuns)}`);
  console.log(`keep alone, SQLite: ${f(sqliteRuns)}; ${((100 * median(sqliteRuns)) / median(askRuns)).toFixed(1)}% of the ask`);
  if (pgRuns) console.log(`keep alone, PostgreSQL 15: ${f(pgRuns)}; ${((100 * median(pgRuns)) / median(askRuns)).toFixed(1)}% of the ask`);
  console.log(
    `track record of ${RUNS} kept answers of 10,000 cases, all 10,000 reported (read, pair, statistics), SQLite: ${f(sqliteRead)}`,
  );
  if (pgRead) console.log(`the same, PostgreSQL 15: ${f(pgRead)}`);
  console.log(
    `machine: ${os.cpus()[0]?.model} x${os.cpus().length}, Node ${process.version}, load ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
}

await main();
