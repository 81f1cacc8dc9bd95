// The cost of keeping answers for the track record (docs/reference/outcomes.md#track-record), measured beside the ask it rides on:
// a 10,000-case yesno ask by model_ref (no fit) through a real service on loopback (SQLite), median of 7;
// then the store's keep alone (the same 10,000 told cases, one packed row) on a fresh SQLite store and a
// fresh PostgreSQL 15 database, median of 7 each; a 1-case keep, 300 times (what each cached ask would wait
// for without the batching writer); and a track record read. Run: `npx tsx bench/track-record.ts`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { startService } from '../host/main.ts';
import { createLiveKey } from '../host/runtime/keys.ts';
import { answeredCasesOf } from '../host/operations/ask/keep-answers.ts';
import { openPostgresStore, openSqliteStore, type AnsweredCase, type Store } from '../host/store/index.ts';
import { createDatabase, postgresMissing, startPostgres } from '../test/helpers/postgres.ts';
import { churnRows } from '../test/helpers/churn.ts';
import { pairCalls, trackRecordOf } from '../host/operations/models/track-record-stats.ts';

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

/** One 1-case answer kept at a time, as a synchronous keep in every cached ask would be: p50 and p99 of 300. */
async function timeSmallKeeps(store: Store, row: AnsweredCase): Promise<{ p50: number; p99: number }> {
  const xs: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t = performance.now();
    await store.keepAnsweredCases([{ ...row, answer_id: `an_small_${i}` }]);
    xs.push(performance.now() - t);
  }
  xs.sort((a, b) => a - b);
  return { p50: xs[150], p99: xs[297] };
}

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
  const sqliteSmall = await timeSmallKeeps(sqlite, kept[0]);
  await sqlite.close();

  let pgRuns: number[] | null = null;
  let pgRead: number[] | null = null;
  let pgSmall: { p50: number; p99: number } | null = null;
  if (postgresMissing() === null) {
    const server = await startPostgres();
    try {
      const pgStore = await openPostgresStore(await createDatabase(server.url, 'bench'));
      pgRuns = await timeKeep(pgStore, kept);
      pgRead = await timeRead(pgStore, kept);
      pgSmall = await timeSmallKeeps(pgStore, kept[0]);
      await pgStore.close();
    } finally {
      await server.destroy();
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(sqliteDir, { recursive: true, force: true });
  const f = (xs: number[]) => `median ${median(xs).toFixed(1)} ms (runs ${xs.map((x) => x.toFixed(1)).join(', ')})`;
  console.log(`cases kept per ask: ${kept.length}`);
  console.log(`10,000-case yesno ask by model_ref, request to last byte (SQLite; its cases handed to the batching writer): ${f(askRuns)}`);
  const g = (x: { p50: number; p99: number }) => `p50 ${x.p50.toFixed(2)} ms, p99 ${x.p99.toFixed(2)} ms`;
  console.log(
    `a 1-case keep, one at a time (300), SQLite (synchronous=FULL): ${g(sqliteSmall)}${pgSmall ? `; PostgreSQL 15: ${g(pgSmall)}` : ''}`,
  );
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
