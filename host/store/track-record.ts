// The answers kept for a track record (additions 2.1): what each answered case was told, written once per
// answer in a few multi-row statements of one transaction, and read back only for the cases that have
// an outcome under the same model_ref (the pairing itself is host/operations/track-record-stats.ts).
import type { SqlClient } from './sql.ts';

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

/** The kept answers of one model_ref: how many, since when, and those about cases with a reported outcome. */
export interface KeptAnswers {
  kept: number;
  since: number | null;
  /** Ordered by case, then issue time, then answer id. */
  withOutcome: AnsweredCase[];
}

export interface TrackRecordStore {
  /** Keeps an answer's cases (insert-if-absent by case and answer, so a re-run of the same answer adds nothing). */
  keepAnsweredCases(rows: readonly AnsweredCase[]): Promise<void>;
  keptAnswers(workspace_id: string, model_ref: string): Promise<KeptAnswers>;
}

const COLUMNS = 'workspace_id, model_ref, entity_id, answer_id, namespace, issued_at, p, band, level';
const PER_ROW = 9;
/**
 * Rows per INSERT: 9 parameters each, so 4,500 per statement, under SQLite's 32,766 and PostgreSQL's
 * 65,535. A 10,000-case answer is three statements in one transaction (BENCHMARKS.md "Track record").
 */
export const ROWS_PER_INSERT = 500;

interface AnsweredRow extends Omit<AnsweredCase, 'issued_at' | 'p'> {
  issued_at: unknown;
  p: unknown;
}

function toAnswered(r: AnsweredRow): AnsweredCase {
  return { ...r, issued_at: Number(r.issued_at), p: Number(r.p) };
}

export function trackRecordQueries(db: SqlClient): TrackRecordStore {
  return {
    async keepAnsweredCases(rows) {
      if (rows.length === 0) return;
      await db.transaction(async (tx) => {
        for (let at = 0; at < rows.length; at += ROWS_PER_INSERT) {
          const part = rows.slice(at, at + ROWS_PER_INSERT);
          const values = part.map(() => `(${new Array(PER_ROW).fill('?').join(', ')})`).join(', ');
          const params = part.flatMap((r) => [
            r.workspace_id,
            r.model_ref,
            r.entity_id,
            r.answer_id,
            r.namespace,
            r.issued_at,
            r.p,
            r.band,
            r.level,
          ]);
          await tx.run(
            `INSERT INTO answered_cases (${COLUMNS}) VALUES ${values}
             ON CONFLICT (workspace_id, model_ref, entity_id, answer_id) DO NOTHING`,
            params,
          );
        }
      });
    },

    async keptAnswers(workspace_id, model_ref) {
      const head = await db.get<{ n: unknown; since: unknown }>(
        'SELECT COUNT(*) AS n, MIN(issued_at) AS since FROM answered_cases WHERE workspace_id = ? AND model_ref = ?',
        [workspace_id, model_ref],
      );
      const rows = await db.all<AnsweredRow>(
        `SELECT ${COLUMNS.split(', ')
          .map((c) => `a.${c}`)
          .join(', ')} FROM answered_cases a
         WHERE a.workspace_id = ? AND a.model_ref = ?
           AND EXISTS (SELECT 1 FROM outcomes o WHERE o.workspace_id = a.workspace_id AND o.model_ref = a.model_ref AND o.entity_id = a.entity_id)
         ORDER BY a.entity_id, a.issued_at, a.answer_id`,
        [workspace_id, model_ref],
      );
      const since = head?.since;
      return {
        kept: Number(head?.n ?? 0),
        since: since === null || since === undefined ? null : Number(since),
        withOutcome: rows.map(toAnswered),
      };
    },
  };
}
