// What every operation is handed: configuration, the store, the signing key ring, the engine and
// its fit pool, a logger; plus who is calling. Transports build an OpContext and call operations.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Store } from './store/index.ts';
import type { KeyRing } from './signing/index.ts';
import type { EngineModule, FitPool } from './engine/index.ts';
import type { UsageMeter } from './operations/usage-meter.ts';

export type { Config } from './config.ts';

export interface Services {
  config: Config;
  store: Store;
  keyRing: KeyRing;
  engine: EngineModule;
  pool: FitPool;
  log: Logger;
  /** Injected clock (tests move time); epoch ms. */
  now: () => number;
  /** The usage ledger's batching writer (host/operations/usage-meter.ts). */
  usage: UsageMeter;
}

export interface Caller {
  workspaceId: string;
  keyId: string;
  mode: 'live' | 'test';
  scopes: string[];
}

export interface OpContext {
  services: Services;
  /** null for operations that need no key (verify, describe, register). */
  caller: Caller | null;
  requestId: string;
  /** Client address (rate limit of register_agent). */
  clientAddress: string;
}

/** An operation's reply: HTTP status and JSON body (transports add problem+json for errors). */
export interface OpResult<T = unknown> {
  status: number;
  body: T;
  headers?: Record<string, string>;
  /** The body as JSON text, for operations that can write it faster than JSON.stringify(body) can. */
  bodyJson?: () => string;
}

/** JSON text of an operation's reply body: the operation's own writer when it has one. */
export function resultJson(result: OpResult): string {
  return result.bodyJson ? result.bodyJson() : JSON.stringify(result.body);
}
