// The Hono environment shared by the middleware and routes: what each request carries along.
import type { Caller, Services } from '../runtime/services.ts';

export interface AppVariables {
  services: Services;
  /** Echoed as x-request-id and in every Problem (wire.md "Problems"). */
  requestId: string;
  /** The peer address of the connection (spec 4.12: register_agent is limited per address). */
  clientAddress: string;
  /** Set by the bearer middleware on keyed routes; null on no-key routes (spec 5.5). */
  caller: Caller | null;
  /** The parsed JSON body, set by the body reader. */
  body: unknown;
}

export interface AppEnv {
  Variables: AppVariables;
}
