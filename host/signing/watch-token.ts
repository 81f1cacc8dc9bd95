// Watch links (docs/reference/tasks.md#watch): `{site_url}/watch/<token>` shows one task's stream to anyone holding the link, for
// 24 hours from the task's start (its answer is kept that long). The token is signed here (hmac-token.ts),
// names the task and its workspace, and is refused after its time.
import { tokenCodec, type LinkSigning, type TokenSecrets } from './hmac-token.ts';

/** docs/reference/errors.md#problem: viewable by any holder for 24 hours. */
export const WATCH_TTL_MS = 24 * 60 * 60 * 1000;
const codec = tokenCodec('watch-v1.', 200);

export interface WatchGrant {
  taskId: string;
  workspaceId: string;
  /** Epoch ms after which the link is expired (410 watch_link_expired). */
  expiresAt: number;
}

export function signWatchToken(secrets: TokenSecrets, g: WatchGrant): string {
  return codec.sign(secrets.watch, { t: g.taskId, w: g.workspaceId, e: Math.floor(g.expiresAt / 1000) });
}

/** The grant of a token signed here, expired or not; null for anything else (answered as unknown_link). */
export function openWatchToken(secrets: TokenSecrets, token: string): WatchGrant | null {
  const g = codec.open(secrets.watch, token) as { t?: unknown; w?: unknown; e?: unknown } | null;
  if (!g || typeof g.t !== 'string' || typeof g.w !== 'string' || typeof g.e !== 'number') return null;
  return { taskId: g.t, workspaceId: g.w, expiresAt: g.e * 1000 };
}

/** The watch_url of a task begun at `createdAt` (docs/reference/tasks.md#watch; {site_url} is this service's BASE_URL). */
export function watchUrlOf(s: LinkSigning, taskId: string, workspaceId: string, createdAt: number): string {
  return `${s.config.baseUrl}/watch/${signWatchToken(s.secrets, { taskId, workspaceId, expiresAt: createdAt + WATCH_TTL_MS })}`;
}

/**
 * docs/reference/outcomes.md#watch: the watch_url of svc_track_record and svc_drift shows one model's calibration and latest drift.
 * Its token names the workspace, the namespace ('' = the workspace's own), the model_ref and which call gave it
 * (`kind`), and is bound to its own context, so a task's token never opens as a model's nor the reverse.
 */
export type ModelWatchKind = 'track_record' | 'drift';

export interface ModelWatchGrant {
  workspaceId: string;
  namespace: string;
  modelRef: string;
  kind: ModelWatchKind;
  /** Epoch ms after which the link is expired (410 watch_link_expired). */
  expiresAt: number;
}

const modelCodec = tokenCodec('watch-model-v1.', 400);

export function signModelWatchToken(secrets: TokenSecrets, g: ModelWatchGrant): string {
  return modelCodec.sign(secrets.watch, { w: g.workspaceId, n: g.namespace, m: g.modelRef, k: g.kind, e: Math.floor(g.expiresAt / 1000) });
}

/** The grant of a model watch token signed here, expired or not; null for anything else. */
export function openModelWatchToken(secrets: TokenSecrets, token: string): ModelWatchGrant | null {
  const g = modelCodec.open(secrets.watch, token) as { w?: unknown; n?: unknown; m?: unknown; k?: unknown; e?: unknown } | null;
  if (!g || typeof g.w !== 'string' || typeof g.n !== 'string' || typeof g.m !== 'string' || typeof g.e !== 'number') return null;
  if (g.k !== 'track_record' && g.k !== 'drift') return null;
  return { workspaceId: g.w, namespace: g.n, modelRef: g.m, kind: g.k, expiresAt: g.e * 1000 };
}

/** The watch_url of a model's calibration and latest drift, given at `issuedAt` (24 hours from then). */
export function modelWatchUrlOf(s: LinkSigning, g: Omit<ModelWatchGrant, 'expiresAt'>, issuedAt: number): string {
  return `${s.config.baseUrl}/watch/${signModelWatchToken(s.secrets, { ...g, expiresAt: issuedAt + WATCH_TTL_MS })}`;
}
