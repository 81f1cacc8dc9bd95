// The answers kept for a track record (additions 2.1): what each answered case was told, written in
// batches (host/operations/answer-keeper.ts) as one row per answer and model_ref with its cases packed
// (BENCHMARKS.md "Track record"), and read back unpacked, only for the cases that have an
// outcome under the same model_ref (the pairing itself is host/operations/track-record-stats.ts).
import { toBytes, type SqlClient } from './sql.ts';

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

export interface TrackRecordStore {
  /**
   * Keeps answers' cases (rows of any answers and model_refs): one row per answer and model_ref, in one
   * transaction, insert-if-absent by answer, so a re-run of the same answer adds nothing.
   */
  keepAnsweredCases(rows: readonly AnsweredCase[]): Promise<void>;
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

function pack(rows: readonly AnsweredCase[]): Uint8Array {
  const packed: Packed = { e: [], p: [], b: [], l: [] };
  for (const r of rows) {
    packed.e.push(r.entity_id);
    packed.p.push(r.p);
    packed.b.push(r.band);
    packed.l.push(r.level);
  }
  return toBytes(JSON.stringify(packed));
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function trackRecordQueries(db: SqlClient): TrackRecordStore {
  return {
    async keepAnsweredCases(rows) {
      if (rows.length === 0) return;
      const byAnswer = new Map<string, AnsweredCase[]>();
      let list: AnsweredCase[] | undefined;
      for (const r of rows) {
        // one ask's cases come one after another: the key is built only where the answer changes
        const prev = list?.[0];
        if (!prev || prev.workspace_id !== r.workspace_id || prev.model_ref !== r.model_ref || prev.answer_id !== r.answer_id) {
          const key = `${r.workspace_id}\u0000${r.model_ref}\u0000${r.answer_id}`;
          list = byAnswer.get(key);
          if (!list) byAnswer.set(key, (list = []));
        }
        list!.push(r);
      }
      const groups = [...byAnswer.values()];
      const insert = async (tx: SqlClient, part: AnsweredCase[][]) => {
        const values = part.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ');
        const params = part.flatMap((g) => [
          g[0].workspace_id,
          g[0].model_ref,
          g[0].answer_id,
          g[0].namespace,
          g[0].issued_at,
          g.length,
          pack(g),
        ]);
        await tx.run(
          `INSERT INTO kept_answers (${COLUMNS}) VALUES ${values} ON CONFLICT (workspace_id, model_ref, answer_id) DO NOTHING`,
          params,
        );
      };
      if (groups.length <= ANSWERS_PER_INSERT) return insert(db, groups);
      await db.transaction(async (tx) => {
        for (let at = 0; at < groups.length; at += ANSWERS_PER_INSERT) await insert(tx, groups.slice(at, at + ANSWERS_PER_INSERT));
      });
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
