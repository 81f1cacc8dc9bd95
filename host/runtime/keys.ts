// API keys (docs/reference/auth.md): minted with 160 random bits, stored only as a
// sha256 hash, one workspace each; live keys made by the operator, test keys by register_agent.
import { createHash, randomBytes } from 'node:crypto';
import type { ApiKeyRecord, KeyMode, Store, Workspace } from '../store/index.ts';

export const KEY_PREFIX: Record<KeyMode, string> = { live: 'svck_live_', test: 'svck_test_' };
/** docs/reference/auth.md#capabilities: "Can report outcomes"; needed by svc_report_outcomes and svc_attest. */
export const SCOPE_WRITE_OUTCOMES = 'write:outcomes';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lowercase
const RANDOM_CHARS = 32; // 32 x 5 = 160 bits (docs/reference/auth.md#live-keys: at least 128)
/** How much of a key operators see in listings (the prefix and 4 random chars). */
const SHOWN_CHARS = 14;

/** A fresh key: prefix + 32 base32 chars, each from 5 bits of one random byte (no modulo bias). */
export function mintApiKey(mode: KeyMode): string {
  let out = KEY_PREFIX[mode];
  for (const b of randomBytes(RANDOM_CHARS)) out += ALPHABET[b & 31];
  return out;
}

/** The only form a key is stored in. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export interface IssuedKey {
  /** The key itself: shown once, never stored. */
  key: string;
  record: ApiKeyRecord;
}

export async function issueApiKey(
  store: Store,
  opts: { workspaceId: string; mode: KeyMode; scopes?: string[]; now: number },
): Promise<IssuedKey> {
  const key = mintApiKey(opts.mode);
  const record = await store.createApiKey({
    key_hash: hashApiKey(key),
    prefix: key.slice(0, SHOWN_CHARS),
    workspace_id: opts.workspaceId,
    mode: opts.mode,
    scopes: opts.scopes ?? [],
    created_at: opts.now,
  });
  return { key, record };
}

/**
 * The store has no lookup by name, so workspaces are found through their keys. A workspace made
 * here always gets a key at once, so the operator's workspaces are all reachable this way.
 */
export async function findWorkspaceByName(store: Store, name: string): Promise<Workspace | null> {
  const seen = new Set<string>();
  for (const k of await store.listAllApiKeys()) {
    if (seen.has(k.workspace_id)) continue;
    seen.add(k.workspace_id);
    const ws = await store.getWorkspace(k.workspace_id);
    if (ws?.name === name) return ws;
  }
  return null;
}

/** Creates a live key in the workspace named `workspaceName`, making the workspace when new. */
export async function createLiveKey(
  store: Store,
  opts: { workspaceName: string; canReportOutcomes?: boolean; now: number },
): Promise<IssuedKey & { workspace: Workspace }> {
  const workspace = (await findWorkspaceByName(store, opts.workspaceName)) ?? (await store.createWorkspace(opts.workspaceName, opts.now));
  const scopes = opts.canReportOutcomes ? [SCOPE_WRITE_OUTCOMES] : [];
  const issued = await issueApiKey(store, { workspaceId: workspace.id, mode: 'live', scopes, now: opts.now });
  return { ...issued, workspace };
}

/** A key as operators see it: never the hash. */
export interface KeyListing {
  id: string;
  prefix: string;
  workspace_id: string;
  workspace: string;
  mode: KeyMode;
  scopes: string[];
  created_at: string;
  revoked_at: string | null;
}

export async function listKeys(store: Store, workspaceName?: string): Promise<KeyListing[]> {
  let records: ApiKeyRecord[];
  if (workspaceName !== undefined) {
    const ws = await findWorkspaceByName(store, workspaceName);
    records = ws ? await store.listApiKeysByWorkspace(ws.id) : [];
  } else {
    records = await store.listAllApiKeys();
  }
  const names = new Map<string, string>();
  const out: KeyListing[] = [];
  for (const r of records) {
    if (!names.has(r.workspace_id)) names.set(r.workspace_id, (await store.getWorkspace(r.workspace_id))?.name ?? '');
    out.push({
      id: r.id,
      prefix: r.prefix,
      workspace_id: r.workspace_id,
      workspace: names.get(r.workspace_id)!,
      mode: r.mode,
      scopes: r.scopes,
      created_at: new Date(r.created_at).toISOString(),
      revoked_at: r.revoked_at === null ? null : new Date(r.revoked_at).toISOString(),
    });
  }
  return out;
}

/** false when the key id is unknown or already revoked. */
export function revokeKey(store: Store, keyId: string, now: number): Promise<boolean> {
  return store.revokeApiKey(keyId, now);
}
