// The Hono environment shared by the middleware and routes: what each request carries along.
import type { Caller, Services } from '../runtime/services.ts';

export interface AppVariables {
  services: Services;
  /** Echoed as x-request-id and in every Problem (docs/reference/errors.md#problem). */
  requestId: string;
  /** The peer address of the connection (docs/reference/auth.md#test-keys: register_agent is limited per address). */
  clientAddress: string;
  /** Set by the bearer middleware on keyed routes; null on no-key routes (docs/reference/auth.md#scheme). */
  caller: Caller | null;
  /** The parsed JSON body, set by the body reader. */
  body: unknown;
}

export interface AppEnv {
  Variables: AppVariables;
}
