// OAuth test setup: real loopback issuers and a real service that trusts them (OAUTH_ISSUERS parsed as an
// operator would write it), with a test clock that both token lifetimes and the key refresh bound follow.
import type { Logger } from 'pino';
import { parseOAuthIssuers } from '../../host/signing/index.ts';
import { startTestService, type TestService } from '../http/helpers.ts';
import type { Config } from '../../host/runtime/services.ts';
import { secondsOf } from './issuer.ts';

export { call, expectProblem } from '../http/helpers.ts';
export type { TestService };

export const AUDIENCE = 'outcome-service';

export interface Clock {
  now: number;
}

export function newClock(): Clock {
  return { now: Date.UTC(2026, 0, 5, 10, 0, 0) };
}

/** The usual claims of a valid token at the clock's time: five minutes to live. */
export function claimsAt(clock: Clock, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const now = secondsOf(clock.now);
  return { sub: 'user-1', aud: AUDIENCE, iat: now, exp: now + 300, ...extra };
}

/** A service trusting the issuers of `oauthIssuers` (the JSON objects an operator writes in OAUTH_ISSUERS). */
export async function startOAuthService(
  oauthIssuers: unknown[],
  clock: Clock,
  overrides: Partial<Config> = {},
  log?: Logger,
): Promise<TestService> {
  return startTestService(
    { oauthIssuers: parseOAuthIssuers(JSON.stringify(oauthIssuers)), ...overrides },
    { now: () => clock.now, ...(log ? { log } : {}) },
  );
}
