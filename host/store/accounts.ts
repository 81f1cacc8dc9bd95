// Workspaces, API keys (stored only as hashes) and the Verdict signing keys.
import { newId } from './ids.ts';
import { lockForTransaction, type SqlClient } from './sql.ts';
import type { ApiKeyRecord, ApiKeyStore, KeyMode, SigningKeyStore, StoredSigningKey, WorkspaceStore } from './types.ts';

interface ApiKeyRow {
  id: string;
  key_hash: string;
  prefix: string;
  workspace_id: string;
  mode: string;
  scopes: string;
  created_at: number;
  revoked_at: number | null;
}

interface SigningKeyRow {
  kid: string;
  private_jwk: string;
  public_jwk: string;
  created_at: number;
  retired_at: number | null;
}

const KEY_COLUMNS = 'id, key_hash, prefix, workspace_id, mode, scopes, created_at, revoked_at';

function toApiKey(r: ApiKeyRow): ApiKeyRecord {
  return {
    id: r.id,
    key_hash: r.key_hash,
    prefix: r.prefix,
    workspace_id: r.workspace_id,
    mode: r.mode as KeyMode,
    scopes: JSON.parse(r.scopes) as string[],
    created_at: Number(r.created_at),
    revoked_at: r.revoked_at == null ? null : Number(r.revoked_at),
  };
}

// The key ring speaks ISO strings; the table keeps epoch ms like every other timestamp.
function isoToMs(iso: string, field: string): number {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) throw new TypeError(`${field} is not an ISO 8601 time: ${iso}`);
  return ms;
}

function toSigningKey(r: SigningKeyRow): StoredSigningKey {
  return {
    kid: r.kid,
    private_jwk: r.private_jwk,
    public_jwk: r.public_jwk,
    created_at: new Date(Number(r.created_at)).toISOString(),
    retired_at: r.retired_at == null ? null : new Date(Number(r.retired_at)).toISOString(),
  };
}

export function workspaceQueries(db: SqlClient): WorkspaceStore {
  return {
    async createWorkspace(name, created_at = Date.now()) {
      const ws = { id: newId('ws_'), name, created_at };
      await db.run('INSERT INTO workspaces (id, name, created_at) VALUES (?, ?, ?)', [ws.id, name, created_at]);
      return ws;
    },
    async getWorkspace(id) {
      const r = await db.get<{ id: string; name: string; created_at: number }>('SELECT id, name, created_at FROM workspaces WHERE id = ?', [
        id,
      ]);
      return r ? { id: r.id, name: r.name, created_at: Number(r.created_at) } : null;
    },
    async ensureWorkspace(id, name, created_at) {
      // ON CONFLICT DO NOTHING: two first requests of the same workspace (on one node or two) both succeed.
      await db.run('INSERT INTO workspaces (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING', [id, name, created_at]);
      const r = await db.get<{ id: string; name: string; created_at: number }>('SELECT id, name, created_at FROM workspaces WHERE id = ?', [
        id,
      ]);
      return { id: r!.id, name: r!.name, created_at: Number(r!.created_at) };
    },
  };
}

export function apiKeyQueries(db: SqlClient): ApiKeyStore {
  return {
    async createApiKey(k) {
      const rec: ApiKeyRecord = { id: newId('key_'), ...k, scopes: [...k.scopes], revoked_at: null };
      await db.run(`INSERT INTO api_keys (${KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, [
        rec.id,
        rec.key_hash,
        rec.prefix,
        rec.workspace_id,
        rec.mode,
        JSON.stringify(rec.scopes),
        rec.created_at,
        null,
      ]);
      return rec;
    },
    async findApiKeyByHash(key_hash) {
      const r = await db.get<ApiKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE key_hash = ?`, [key_hash]);
      return r ? toApiKey(r) : null;
    },
    async listApiKeysByWorkspace(workspace_id) {
      const rows = await db.all<ApiKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE workspace_id = ? ORDER BY created_at, id`, [
        workspace_id,
      ]);
      return rows.map(toApiKey);
    },
    async listAllApiKeys() {
      const rows = await db.all<ApiKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at, id`);
      return rows.map(toApiKey);
    },
    async revokeApiKey(id, revoked_at) {
      return (await db.run('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [revoked_at, id])) > 0;
    },
  };
}

// Serialises first-key creation across nodes ('oqskey' in ASCII): the key it guards does not exist yet,
// so there is no row to lock.
const FIRST_KEY_LOCK = 0x6f71736b6579;

export function signingKeyQueries(db: SqlClient): SigningKeyStore {
  return {
    async loadKeys() {
      const rows = await db.all<SigningKeyRow>(
        'SELECT kid, private_jwk, public_jwk, created_at, retired_at FROM signing_keys ORDER BY created_at, kid',
      );
      return rows.map(toSigningKey);
    },
    async saveKey(k) {
      const retired = k.retired_at == null ? null : isoToMs(k.retired_at, 'retired_at');
      await db.run(
        `INSERT INTO signing_keys (kid, private_jwk, public_jwk, created_at, retired_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (kid) DO UPDATE SET private_jwk = excluded.private_jwk, public_jwk = excluded.public_jwk,
           created_at = excluded.created_at, retired_at = excluded.retired_at`,
        [k.kid, k.private_jwk, k.public_jwk, isoToMs(k.created_at, 'created_at'), retired],
      );
    },
    insertFirstKey(k) {
      return db.transaction(async (tx) => {
        // Nodes starting together on an empty store each make a key; only one may become the active
        // key, or each node would sign with a key the others neither use nor publish.
        await lockForTransaction(tx, FIRST_KEY_LOCK);
        const active = await tx.get('SELECT kid FROM signing_keys WHERE retired_at IS NULL');
        if (active) return false;
        await tx.run('INSERT INTO signing_keys (kid, private_jwk, public_jwk, created_at, retired_at) VALUES (?, ?, ?, ?, NULL)', [
          k.kid,
          k.private_jwk,
          k.public_jwk,
          isoToMs(k.created_at, 'created_at'),
        ]);
        return true;
      });
    },
    async retireKey(kid, retired_at) {
      return (await db.run('UPDATE signing_keys SET retired_at = ? WHERE kid = ?', [isoToMs(retired_at, 'retired_at'), kid])) > 0;
    },
  };
}
