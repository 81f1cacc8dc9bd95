// Watch links (spec 2.13): `{site_url}/watch/<token>` shows one task's stream to anyone holding the link, for
// 24 hours from the task's start (its answer is kept that long). The token is signed here (hmac-token.ts),
// names the task and its workspace, and is refused after its time.
import { tokenCodec, type LinkSigning, type TokenSecrets } from '../hmac-token.ts';

/** Spec 2.13: viewable by any holder for 24 hours. */
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

/** The watch_url of a task begun at `createdAt` (spec 2.13; {site_url} is this service's BASE_URL). */
export function watchUrlOf(s: LinkSigning, taskId: string, workspaceId: string, createdAt: number): string {
  return `${s.config.baseUrl}/watch/${signWatchToken(s.secrets, { taskId, workspaceId, expiresAt: createdAt + WATCH_TTL_MS })}`;
}
