// The answers kept for a track record (docs/reference/outcomes.md#track-record): what each answered case was told, written in
// batches (host/runtime/answer-keeper.ts) as one row per answer and model_ref with its cases packed
// (docs/benchmark-results.md#track-record-the-cost-of-keeping-answers), and read back unpacked, only for the cases that have an
// outcome under the same model_ref (the pairing itself is host/operations/models/track-record-stats.ts).
import { toBytes, withoutSync, type SqlClient } from './sql.ts';

/** One answered case as it was told: its chance, and its band and level when the answer gave them. */
export interface AnsweredCase {
  workspace_id: string;
  namespace: string;
  model_ref: string;
  entity_id: string;
  /** The answer it came from (one ask): orders answers issued in the same millisecond. */
  answer_id: string;
  issued_at: number;
  p: number;
  band: string | null;
  level: string | null;
}

/** The kept answers of one model_ref: how many cases, since when, and those about cases with a reported outcome. */
export interface KeptAnswers {
  kept: number;
  since: number | null;
  /** Ordered by case, then issue time, then answer id. */
  withOutcome: AnsweredCase[];
}

/**
 * The cases one answer told under one model_ref, as parallel columns (what is packed into its row):
 * an ask of 10,000 cases is kept as one of these rather than 10,000 AnsweredCase objects.
 */
export interface ToldAnswer {
  workspace_id: string;
  namespace: string;
  model_ref: string;
  answer_id: string;
  issued_at: number;
  entity_ids: string[];
  p: number[];
  band: Array<string | null>;
  level: Array<string | null>;
}

export interface TrackRecordStore {
  /**
   * Keeps answers' cases (rows of any answers and model_refs): one row per answer and model_ref, in one
   * transaction, insert-if-absent by answer, so a re-run of the same answer adds nothing.
   */
  keepAnsweredCases(rows: readonly AnsweredCase[]): Promise<void>;
  /** keepAnsweredCases of the answers' cases given already grouped (the same rows written). */
  keepToldAnswers(answers: readonly ToldAnswer[]): Promise<void>;
  keptAnswers(workspace_id: string, model_ref: string): Promise<KeptAnswers>;
}

/** The packed cases of one answer and model: parallel columns, JSON (a chance round-trips exactly). */
interface Packed {
  e: string[];
  p: number[];
  b: Array<string | null>;
  l: Array<string | null>;
}

const COLUMNS = 'workspace_id, model_ref, answer_id, namespace, issued_at, case_count, cases';
/** Answers per INSERT: 7 parameters each, well under SQLite's 32,766 and PostgreSQL's 65,535 a statement. */
export const ANSWERS_PER_INSERT = 1000;

interface KeptRow {
  workspace_id: string;
  model_ref: string;
  answer_id: string;
  namespace: string;
  issued_at: unknown;
  case_count: unknown;
  cases: Uint8Array;
}

function pack(a: ToldAnswer): Uint8Array {
  const packed: Packed = { e: a.entity_ids, p: a.p, b: a.band, l: a.level };
  return toBytes(JSON.stringify(packed));
}

/**
 * Rows of any answers and model_refs grouped per answer and model_ref, each group's cases in the
 * rows' order, the groups in the order of their first row (the readable form keepToldAnswers is
 * tested against: test/store/track-record.test.ts).
 */
export function toldAnswersOf(rows: readonly AnsweredCase[]): ToldAnswer[] {
  const byAnswer = new Map<string, ToldAnswer>();
  let group: ToldAnswer | undefined;
  for (const r of rows) {
    // one ask's cases come one after another: the key is built only where the answer changes
    if (!group || group.workspace_id !== r.workspace_id || group.model_ref !== r.model_ref || group.answer_id !== r.answer_id) {
      const key = `${r.workspace_id}\u0000${r.model_ref}\u0000${r.answer_id}`;
      group = byAnswer.get(key);
      if (!group) {
        group = { ...answerFields(r), entity_ids: [], p: [], band: [], level: [] };
        byAnswer.set(key, group);
      }
    }
    group.entity_ids.push(r.entity_id);
    group.p.push(r.p);
    group.band.push(r.band);
    group.level.push(r.level);
  }
  return [...byAnswer.values()];
}

function answerFields(r: Omit<ToldAnswer, 'entity_ids' | 'p' | 'band' | 'level'>) {
  return { workspace_id: r.workspace_id, namespace: r.namespace, model_ref: r.model_ref, answer_id: r.answer_id, issued_at: r.issued_at };
}

/** Answers of the same workspace, model_ref and answer id as one (their cases in order), as toldAnswersOf does. */
function mergeSameAnswer(answers: readonly ToldAnswer[]): ToldAnswer[] {
  const byAnswer = new Map<string, ToldAnswer>();
  for (const a of answers) {
    const key = `${a.workspace_id}\u0000${a.model_ref}\u0000${a.answer_id}`;
    const seen = byAnswer.get(key);
    if (!seen) byAnswer.set(key, a);
    else
      byAnswer.set(key, {
        ...seen,
        entity_ids: seen.entity_ids.concat(a.entity_ids),
        p: seen.p.concat(a.p),
        band: seen.band.concat(a.band),
        level: seen.level.concat(a.level),
      });
  }
  return [...byAnswer.values()];
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function trackRecordQueries(db: SqlClient): TrackRecordStore {
  const keepToldAnswers = async (answers: readonly ToldAnswer[]) => {
    const groups = mergeSameAnswer(answers).filter((a) => a.entity_ids.length > 0);
    if (groups.length === 0) return;
    const insert = async (tx: SqlClient, part: ToldAnswer[]) => {
      const values = part.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ');
      const params = part.flatMap((g) => [
        g.workspace_id,
        g.model_ref,
        g.answer_id,
        g.namespace,
        g.issued_at,
        g.entity_ids.length,
        pack(g),
      ]);
      await tx.run(
        `INSERT INTO kept_answers (${COLUMNS}) VALUES ${values} ON CONFLICT (workspace_id, model_ref, answer_id) DO NOTHING`,
        params,
      );
    };
    // A batch that is already up to an interval late (answer-keeper.ts): no fsync (sql.ts TransactionOptions)
    const lazy = withoutSync(db);
    if (groups.length <= ANSWERS_PER_INSERT) return insert(lazy, groups);
    await lazy.transaction(async (tx) => {
      for (let at = 0; at < groups.length; at += ANSWERS_PER_INSERT) await insert(tx, groups.slice(at, at + ANSWERS_PER_INSERT));
    });
  };
  return {
    keepToldAnswers,
    async keepAnsweredCases(rows) {
      return keepToldAnswers(toldAnswersOf(rows));
    },

    async keptAnswers(workspace_id, model_ref) {
      const reported = await db.all<{ entity_id: string }>(
        'SELECT DISTINCT entity_id FROM outcomes WHERE workspace_id = ? AND model_ref = ?',
        [workspace_id, model_ref],
      );
      const wanted = new Set(reported.map((r) => r.entity_id));
      const rows = await db.all<KeptRow>(`SELECT ${COLUMNS} FROM kept_answers WHERE workspace_id = ? AND model_ref = ?`, [
        workspace_id,
        model_ref,
      ]);
      let kept = 0;
      let since: number | null = null;
      const withOutcome: AnsweredCase[] = [];
      for (const row of rows) {
        const issuedAt = Number(row.issued_at);
        kept += Number(row.case_count);
        if (since === null || issuedAt < since) since = issuedAt;
        if (wanted.size === 0) continue;
        const packed = JSON.parse(Buffer.from(row.cases).toString('utf8')) as Packed;
        packed.e.forEach((entity_id, i) => {
          if (!wanted.has(entity_id)) return;
          withOutcome.push({
            workspace_id: row.workspace_id,
            namespace: row.namespace,
            model_ref: row.model_ref,
            entity_id,
            answer_id: row.answer_id,
            issued_at: issuedAt,
            p: packed.p[i],
            band: packed.b[i],
            level: packed.l[i],
          });
        });
      }
      withOutcome.sort(
        (a, b) => compareText(a.entity_id, b.entity_id) || a.issued_at - b.issued_at || compareText(a.answer_id, b.answer_id),
      );
      return { kept, since, withOutcome };
    },
  };
}
