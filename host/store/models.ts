// Fitted models (no rows): one cached fit per fit key, linked to each workspace (and namespace) that was
// given a model_ref of it, with the link's expiry and deletion (docs/reference/models.md#extend, docs/reference/models.md#delete, docs/reference/ask.md#namespace).
import type { SqlClient } from './sql.ts';
import type { FitRecord, ModelLink, ModelRecord, ModelStore } from './types.ts';

// Choice: the fit cache is shared across workspaces. A fit depends only on the record's content
// and the question's fit key (architecture "Fit key"), so two workspaces sending the same bytes get
// the same model_ref and one fit. Access is still per workspace: getModelByRef only finds refs the
// workspace was given (workspace_models), so another workspace's ref answers as unknown. What is
// per workspace (refit_of and its drift report) lives on the link, never on the shared fit. A model_ref of a
// namespace is its own ref (a hash of the fit's ref and the namespace), so a link's model_ref may differ
// from the fit's: `fit_ref` names the fit. A deleted link is kept (deleted_at) so its ref answers
// model_deleted; the fit's bytes go when no live link to it is left.

interface FitRow {
  model_ref: string;
  fit_key: string;
  record_hash: string;
  bytes: Uint8Array;
  meta: string;
  created_at: number;
}

interface LinkColumns {
  workspace_id: string;
  namespace: string;
  fit_ref: string;
  refit_of: string | null;
  linked_at: number;
  expires_at: number | null;
  deleted_at: number | null;
}

interface ModelRow extends FitRow, LinkColumns {
  link_ref: string;
}

interface LinkRow extends LinkColumns {
  model_ref: string;
  fit_key: string | null;
}

const nullableTime = (v: unknown) => (v === null || v === undefined ? null : Number(v));

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
  return {
    ...toFit(r),
    model_ref: r.link_ref,
    workspace_id: r.workspace_id,
    namespace: r.namespace,
    fit_ref: r.fit_ref,
    refit_of: r.refit_of,
    linked_at: Number(r.linked_at),
    expires_at: nullableTime(r.expires_at),
    deleted_at: nullableTime(r.deleted_at),
  };
}

function toLink(r: LinkRow): ModelLink {
  return {
    model_ref: r.model_ref,
    workspace_id: r.workspace_id,
    namespace: r.namespace,
    fit_ref: r.fit_ref,
    fit_key: r.fit_key,
    refit_of: r.refit_of,
    linked_at: Number(r.linked_at),
    expires_at: nullableTime(r.expires_at),
    deleted_at: nullableTime(r.deleted_at),
  };
}

const SELECT_MODEL = `SELECT f.model_ref, f.fit_key, f.record_hash, f.bytes, f.meta, f.created_at,
    w.model_ref AS link_ref, w.workspace_id, w.namespace, w.fit_ref, w.refit_of, w.linked_at, w.expires_at, w.deleted_at
  FROM workspace_models w JOIN fits f ON f.model_ref = w.fit_ref
  WHERE w.workspace_id = ? AND w.model_ref = ?`;

const SELECT_LINK = `SELECT w.model_ref, w.workspace_id, w.namespace, w.fit_ref, w.refit_of, w.linked_at, w.expires_at, w.deleted_at,
    f.fit_key
  FROM workspace_models w LEFT JOIN fits f ON f.model_ref = w.fit_ref
  WHERE w.workspace_id = ? AND w.model_ref = ?`;

export function modelQueries(db: SqlClient): ModelStore {
  return {
    putModel(m) {
      const fitRef = m.fit_ref ?? m.model_ref;
      return db.transaction(async (tx) => {
        // Deterministic fits: a second put of the same ref carries the same bytes, so keep the first.
        // No conflict target: fits has two unique keys (model_ref, and fit_key, from which model_ref is
        // derived), and PostgreSQL applies DO NOTHING only to the target's index. With (model_ref) as
        // target, two nodes putting one fit at once failed about one round in twenty on fit_key's index
        // ('duplicate key value violates unique constraint "fits_fit_key_key"').
        await tx.run(
          `INSERT INTO fits (model_ref, fit_key, record_hash, bytes, meta, created_at) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT DO NOTHING`,
          [fitRef, m.fit_key, m.record_hash, m.bytes, m.meta, m.created_at],
        );
        // A new refit_of replaces the old link (the latest refresh is the one svc_drift compares); null
        // keeps it. A report belongs to one refit_of, so a changed one drops it. The expiry only grows
        // (an ask gives the model at least model_ttl_days more), except on a deleted link, which the
        // ask brings back with exactly its own.
        await tx.run(
          `INSERT INTO workspace_models (workspace_id, model_ref, refit_of, linked_at, namespace, fit_ref, expires_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (workspace_id, model_ref) DO UPDATE SET
             drift = CASE WHEN excluded.refit_of IS NULL OR excluded.refit_of = workspace_models.refit_of
               THEN workspace_models.drift ELSE NULL END,
             refit_of = COALESCE(excluded.refit_of, workspace_models.refit_of),
             expires_at = CASE
               WHEN excluded.expires_at IS NULL THEN workspace_models.expires_at
               WHEN workspace_models.deleted_at IS NOT NULL OR workspace_models.expires_at IS NULL
                 OR workspace_models.expires_at < excluded.expires_at THEN excluded.expires_at
               ELSE workspace_models.expires_at END,
             deleted_at = NULL`,
          [m.workspace_id, m.model_ref, m.refit_of ?? null, m.created_at, m.namespace ?? '', fitRef, m.expires_at ?? null],
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

    async putFit(f) {
      await db.run(
        `INSERT INTO fits (model_ref, fit_key, record_hash, bytes, meta, created_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT DO NOTHING`,
        [f.model_ref, f.fit_key, f.record_hash, f.bytes, f.meta, f.created_at],
      );
    },

    async getModelLink(workspace_id, model_ref) {
      const r = await db.get<LinkRow>(SELECT_LINK, [workspace_id, model_ref]);
      return r ? toLink(r) : null;
    },

    async hasLiveFitLink(workspace_id, fit_ref, now) {
      // workspace_models_by_fit: the links to one fit are few (one per namespace and workspace)
      const r = await db.get(
        `SELECT 1 AS live FROM workspace_models
         WHERE fit_ref = ? AND workspace_id = ? AND deleted_at IS NULL AND (expires_at IS NULL OR expires_at > ?) LIMIT 1`,
        [fit_ref, workspace_id, now],
      );
      return r !== undefined && r !== null;
    },

    async extendModelExpiry(workspace_id, model_ref, expires_at) {
      // one statement, so two extends at once keep the later expiry whatever their order
      return (
        (await db.run(
          'UPDATE workspace_models SET expires_at = CASE WHEN expires_at IS NULL OR expires_at >= ? THEN expires_at ELSE ? END ' +
            'WHERE workspace_id = ? AND model_ref = ? AND deleted_at IS NULL',
          [expires_at, expires_at, workspace_id, model_ref],
        )) > 0
      );
    },

    deleteModel(workspace_id, model_ref, at) {
      return db.transaction(async (tx) => {
        const link = await tx.get<{ fit_ref: string }>('SELECT fit_ref FROM workspace_models WHERE workspace_id = ? AND model_ref = ?', [
          workspace_id,
          model_ref,
        ]);
        if (!link) return { deleted: false, fit_key_removed: null };
        const n = await tx.run(
          'UPDATE workspace_models SET deleted_at = ? WHERE workspace_id = ? AND model_ref = ? AND deleted_at IS NULL',
          [at, workspace_id, model_ref],
        );
        // docs/reference/models.md#delete: deleting a model deletes its bytes, unless another live link (another namespace or
        // workspace that sent the same record) still serves the same fit.
        const fit = await tx.get<{ fit_key: string }>(
          `SELECT fit_key FROM fits WHERE model_ref = ?
             AND NOT EXISTS (SELECT 1 FROM workspace_models WHERE fit_ref = ? AND deleted_at IS NULL)`,
          [link.fit_ref, link.fit_ref],
        );
        if (fit) await tx.run('DELETE FROM fits WHERE model_ref = ?', [link.fit_ref]);
        return { deleted: n > 0, fit_key_removed: fit?.fit_key ?? null };
      });
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
