// The usage ledger, and the evidence callers send back: real outcomes and attestations of acting.
import { toCount, withoutSync, type SqlClient } from './sql.ts';
import type { AttestationRecord, EvidenceStore, OutcomeRecord, UsageStore } from './types.ts';

export function usageQueries(db: SqlClient): UsageStore {
  return {
    // The meter's batch, already up to an interval late (usage-meter.ts): no fsync (sql.ts TransactionOptions)
    async recordUsage(e) {
      await withoutSync(db).run('INSERT INTO usage_ledger (workspace_id, namespace, kind, count, at) VALUES (?, ?, ?, ?, ?)', [
        e.workspace_id,
        e.namespace ?? '',
        e.kind,
        e.count,
        e.at,
      ]);
    },

    async getMonthlyUsage(workspace_id, at, namespace) {
      // Free fits are counted per UTC calendar month.
      const d = new Date(at);
      const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
      const end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
      // docs/reference/ask.md#namespace: metered per namespace; the workspace's total is the sum over its namespaces.
      const rows =
        namespace === undefined
          ? await db.all<{ kind: string; total: unknown }>(
              'SELECT kind, SUM(count) AS total FROM usage_ledger WHERE workspace_id = ? AND at >= ? AND at < ? GROUP BY kind',
              [workspace_id, start, end],
            )
          : await db.all<{ kind: string; total: unknown }>(
              `SELECT kind, SUM(count) AS total FROM usage_ledger
               WHERE workspace_id = ? AND namespace = ? AND at >= ? AND at < ? GROUP BY kind`,
              [workspace_id, namespace, start, end],
            );
      const total = (kind: string) => toCount(rows.find((r) => r.kind === kind)?.total);
      return { month: new Date(start).toISOString().slice(0, 7), fits: total('fit'), decisions: total('decision') };
    },
  };
}

const OUTCOME_COLUMNS = 'workspace_id, model_ref, entity_id, outcome, observed_at, event_id, created_at';
const ATTEST_COLUMNS = 'workspace_id, model_ref, entity_id, feature, direction, compliant, post_value, acted_at, event_id, created_at';

type AttestationRow = Omit<AttestationRecord, 'compliant'> & { compliant: number };

function toOutcome(r: OutcomeRecord): OutcomeRecord {
  return {
    ...r,
    outcome: Number(r.outcome) === 1 ? 1 : 0,
    observed_at: Number(r.observed_at),
    created_at: Number(r.created_at),
  };
}

function toAttestation(r: AttestationRow): AttestationRecord {
  return { ...r, compliant: Number(r.compliant) === 1, acted_at: Number(r.acted_at), created_at: Number(r.created_at) };
}

function byEventKey(a: OutcomeRecord, b: OutcomeRecord): number {
  return compare(a.workspace_id, b.workspace_id) || compare(a.model_ref, b.model_ref) || compare(a.event_id ?? '', b.event_id ?? '');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function evidenceQueries(db: SqlClient): EvidenceStore {
  return {
    writeOutcomes(items) {
      // docs/reference/outcomes.md#report / docs/reference/README.md: all-or-nothing. Any failure rolls the whole batch back.
      // Rows go in one fixed order (by their unique key; a stable sort, so of two items with one
      // event_id the batch's first is the one written): two batches sharing events then take their
      // key locks in the same order and wait for each other instead of deadlocking (PostgreSQL).
      const ordered = items.map((o, i) => ({ o, i })).sort((a, b) => byEventKey(a.o, b.o));
      return db.transaction(async (tx) => {
        const writtenEach = new Array<boolean>(items.length).fill(false);
        let written = 0;
        for (const { o, i } of ordered) {
          const n = await tx.run(
            `INSERT INTO outcomes (${OUTCOME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (workspace_id, model_ref, event_id) DO NOTHING`,
            [o.workspace_id, o.model_ref, o.entity_id, o.outcome, o.observed_at, o.event_id, o.created_at],
          );
          writtenEach[i] = n > 0;
          written += n;
        }
        return { written, duplicates: items.length - written, written_each: writtenEach };
      });
    },

    async listOutcomes(workspace_id, model_ref) {
      const rows = await db.all<OutcomeRecord>(
        `SELECT ${OUTCOME_COLUMNS} FROM outcomes WHERE workspace_id = ? AND model_ref = ?
         ORDER BY observed_at, created_at, entity_id, event_id`,
        [workspace_id, model_ref],
      );
      return rows.map(toOutcome);
    },

    insertAttestation(a) {
      return db.transaction(async (tx) => {
        const n = await tx.run(
          `INSERT INTO attestations (${ATTEST_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (workspace_id, model_ref, event_id) DO NOTHING`,
          [
            a.workspace_id,
            a.model_ref,
            a.entity_id,
            a.feature,
            a.direction,
            a.compliant ? 1 : 0,
            a.post_value,
            a.acted_at,
            a.event_id,
            a.created_at,
          ],
        );
        if (n > 0) return { written: true, record: { ...a } };
        const existing = await tx.get<AttestationRow>(
          `SELECT ${ATTEST_COLUMNS} FROM attestations WHERE workspace_id = ? AND model_ref = ? AND event_id = ?`,
          [a.workspace_id, a.model_ref, a.event_id],
        );
        return { written: false, record: toAttestation(existing as AttestationRow) };
      });
    },

    async listAttestations(workspace_id, model_ref) {
      const rows = await db.all<AttestationRow>(
        `SELECT ${ATTEST_COLUMNS} FROM attestations WHERE workspace_id = ? AND model_ref = ?
         ORDER BY acted_at, created_at, entity_id`,
        [workspace_id, model_ref],
      );
      return rows.map(toAttestation);
    },
  };
}
