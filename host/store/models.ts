// Fitted models (no rows): one cached fit per fit key, linked to each workspace that was given its model_ref.
import type { SqlClient } from './sql.ts';
import type { FitRecord, ModelRecord, ModelStore } from './types.ts';

// Choice: the fit cache is shared across workspaces. A fit depends only on the record's content
// and the question's fit key (architecture "Fit key"), so two workspaces sending the same bytes get
// the same model_ref and one fit. Access is still per workspace: getModelByRef only finds refs the
// workspace was given (workspace_models), so another workspace's ref answers as unknown. What is
// per workspace (refit_of and its drift report) lives on the link, never on the shared fit.

interface FitRow {
  model_ref: string;
  fit_key: string;
  record_hash: string;
  bytes: Uint8Array;
  meta: string;
  created_at: number;
}

interface ModelRow extends FitRow {
  workspace_id: string;
  refit_of: string | null;
  linked_at: number;
}

function toFit(r: FitRow): FitRecord {
  return {
    model_ref: r.model_ref,
    fit_key: r.fit_key,
    record_hash: r.record_hash,
    bytes: r.bytes,
    meta: r.meta,
    created_at: Number(r.created_at),
  };
}

function toModel(r: ModelRow): ModelRecord {
  return { ...toFit(r), workspace_id: r.workspace_id, refit_of: r.refit_of, linked_at: Number(r.linked_at) };
}

const SELECT_MODEL = `SELECT f.model_ref, f.fit_key, f.record_hash, f.bytes, f.meta, f.created_at,
    w.workspace_id, w.refit_of, w.linked_at
  FROM workspace_models w JOIN fits f ON f.model_ref = w.model_ref
  WHERE w.workspace_id = ? AND w.model_ref = ?`;

export function modelQueries(db: SqlClient): ModelStore {
  return {
    putModel(m) {
      return db.transaction(async (tx) => {
        // Deterministic fits: a second put of the same ref carries the same bytes, so keep the first.
        // No conflict target: fits has two unique keys (model_ref, and fit_key, from which model_ref is
        // derived), and PostgreSQL applies DO NOTHING only to the target's index. With (model_ref) as
        // target, two nodes putting one fit at once failed about one round in twenty on fit_key's index
        // ('duplicate key value violates unique constraint "fits_fit_key_key"').
        await tx.run(
          `INSERT INTO fits (model_ref, fit_key, record_hash, bytes, meta, created_at) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT DO NOTHING`,
          [m.model_ref, m.fit_key, m.record_hash, m.bytes, m.meta, m.created_at],
        );
        // A new refit_of replaces the old link (the latest refresh is the one svc_drift compares); null
        // keeps it. A report belongs to one refit_of, so a changed one drops it.
        await tx.run(
          `INSERT INTO workspace_models (workspace_id, model_ref, refit_of, linked_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (workspace_id, model_ref) DO UPDATE SET
             drift = CASE WHEN excluded.refit_of IS NULL OR excluded.refit_of = workspace_models.refit_of
               THEN workspace_models.drift ELSE NULL END,
             refit_of = COALESCE(excluded.refit_of, workspace_models.refit_of)`,
          [m.workspace_id, m.model_ref, m.refit_of ?? null, m.created_at],
        );
        const row = await tx.get<ModelRow>(SELECT_MODEL, [m.workspace_id, m.model_ref]);
        // Only a fit_key already stored under another model_ref leaves the link without its fit.
        if (!row) throw new Error(`fit key ${m.fit_key} is stored under a model_ref other than ${m.model_ref}`);
        return toModel(row);
      });
    },

    async getModelByRef(workspace_id, model_ref) {
      const r = await db.get<ModelRow>(SELECT_MODEL, [workspace_id, model_ref]);
      return r ? toModel(r) : null;
    },

    async getModelByFitKey(fit_key) {
      const r = await db.get<FitRow>('SELECT model_ref, fit_key, record_hash, bytes, meta, created_at FROM fits WHERE fit_key = ?', [
        fit_key,
      ]);
      return r ? toFit(r) : null;
    },

    async linkRefit(workspace_id, model_ref, refit_of) {
      // SET expressions read the row as it was, so the CASE compares with the old refit_of.
      return (
        (await db.run(
          `UPDATE workspace_models SET drift = CASE WHEN refit_of = ? THEN drift ELSE NULL END, refit_of = ?
         WHERE workspace_id = ? AND model_ref = ?`,
          [refit_of, refit_of, workspace_id, model_ref],
        )) > 0
      );
    },

    async saveDriftReport(workspace_id, model_ref, refit_of, report) {
      return (
        (await db.run('UPDATE workspace_models SET refit_of = ?, drift = ? WHERE workspace_id = ? AND model_ref = ?', [
          refit_of,
          report,
          workspace_id,
          model_ref,
        ])) > 0
      );
    },

    async getDriftReport(workspace_id, model_ref) {
      const r = await db.get<{ refit_of: string; drift: string }>(
        `SELECT refit_of, drift FROM workspace_models
         WHERE workspace_id = ? AND model_ref = ? AND refit_of IS NOT NULL AND drift IS NOT NULL`,
        [workspace_id, model_ref],
      );
      return r ? { refit_of: r.refit_of, report: r.drift } : null;
    },
  };
}
