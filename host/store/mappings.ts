// Mappings (docs/reference/map.md#map): a confirmed svc_map request kept per workspace and namespace, so `mapping_id`
// replays it (and a schedule can run it). The request is kept without fetch_headers (never stored).
import type { SqlClient } from './sql.ts';

export interface MappingRecord {
  workspace_id: string;
  /** '' = the workspace's own (docs/reference/ask.md#namespace). */
  namespace: string;
  mapping_id: string;
  /** The canonical JSON of the confirming request (sources, answers, snapshot_every, horizon, as_of). */
  request: string;
  created_at: number;
}

export interface MappingStore {
  /** Keeps a mapping; the same id again (the same request) is kept once. */
  putMapping(m: MappingRecord): Promise<void>;
  getMapping(workspace_id: string, namespace: string, mapping_id: string): Promise<MappingRecord | null>;
  /** The namespace's mappings, oldest first (the horizon budget counts them per record). */
  listMappings(workspace_id: string, namespace: string): Promise<MappingRecord[]>;
}

export function mappingQueries(db: SqlClient): MappingStore {
  return {
    async putMapping(m) {
      await db.run(
        `INSERT INTO mappings (workspace_id, namespace, mapping_id, request, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (workspace_id, namespace, mapping_id) DO NOTHING`,
        [m.workspace_id, m.namespace, m.mapping_id, m.request, m.created_at],
      );
    },

    async getMapping(workspace_id, namespace, mapping_id) {
      const r = await db.get<MappingRecord>(
        'SELECT workspace_id, namespace, mapping_id, request, created_at FROM mappings WHERE workspace_id = ? AND namespace = ? AND mapping_id = ?',
        [workspace_id, namespace, mapping_id],
      );
      return r ? { ...r, created_at: Number(r.created_at) } : null;
    },

    async listMappings(workspace_id, namespace) {
      const rows = await db.all<MappingRecord>(
        'SELECT workspace_id, namespace, mapping_id, request, created_at FROM mappings WHERE workspace_id = ? AND namespace = ? ORDER BY created_at, mapping_id',
        [workspace_id, namespace],
      );
      return rows.map((r) => ({ ...r, created_at: Number(r.created_at) }));
    },
  };
}
