// One run of a fit across every node sharing the store (docs/guides/more-than-one-machine.md: "the same fit asked on several nodes at
// the same moment runs once in total"). The node that claims the fit key runs it under a lease (renewed
// like a task's); the others wait until they can claim it themselves, which they can once its holder has
// released it (the fit stored, and whatever `run` does after storing it, done) or stopped renewing it (killed,
// or lost the database), so no ask waits on a dead node for longer than a lease; the fit is then taken from
// the store. Taking it as soon as it landed, before the holder released the claim, let an ask see the fit
// before the holder's own ask had linked it to the workspace (ask/fits.ts obtainFit).
//
// Why a claim row with a lease, not a session advisory lock: a session lock would hold one pooled
// connection for the whole fit on every node that waits or runs, and breaks behind a transaction-pooling
// PgBouncer; a claim costs one short statement, works the same on SQLite, and a killed holder's claim
// lapses like its task's lease. Correctness does not rest on the claim: fits are deterministic and
// putModel is insert-if-absent, so two runs (a holder that lost its lease and kept going) store one fit.
import type { OpContext } from '../../runtime/services.ts';
import { OWNER } from '../../runtime/leases.ts';

/** First wait between looks at the fits table; it grows by half each look up to POLL_MAX_MS. */
const POLL_FIRST_MS = 50;
const POLL_MAX_MS = 250;

/**
 * `run` under this node's claim on `fitKey`, or the fit another node stored (from `stored`) and released while
 * this one waited. A fit that landed between the caller's look and the claim is taken from the store, not run.
 */
export async function runFitOnce<Fit>(
  ctx: OpContext,
  fitKey: string,
  run: () => Promise<Fit>,
  stored: () => Promise<Fit | null>,
): Promise<Fit> {
  const { store, now, config, leases } = ctx.services;
  for (let wait = POLL_FIRST_MS; ; wait = Math.min(POLL_MAX_MS, Math.round(wait * 1.5))) {
    if (await store.claimFit(fitKey, { owner: OWNER, now: now(), lease_ms: config.taskLeaseMs })) {
      const held = leases.hold(
        () => store.renewFitClaim(fitKey, OWNER, now() + config.taskLeaseMs),
        () => store.releaseFitClaim(fitKey, OWNER),
      );
      try {
        return (await stored()) ?? (await run());
      } finally {
        held.done();
        // Waiters on other nodes see the fit in the store, or (it failed) claim and run it themselves.
        await store.releaseFitClaim(fitKey, OWNER).catch(() => undefined);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
