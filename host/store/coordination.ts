// What nodes sharing one store agree on beyond the data: the database's clock, secrets made once, counters
// for rate limits, periodic jobs run once per period, and claims on fits being run.
import type { SqlClient } from './sql.ts';
import type { CoordinationStore } from './types.ts';

// clock_timestamp(), not now(): now() is the start of the transaction, and a pooled connection may sit in
// none, but the reading must be of this moment.
const DATABASE_TIME = 'SELECT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT AS t';

export function coordinationQueries(db: SqlClient): CoordinationStore {
  return {
    dialect: db.dialect,

    async databaseTime() {
      if (db.dialect !== 'postgres') return null;
      const r = await db.get<{ t: number }>(DATABASE_TIME);
      return r ? Number(r.t) : null;
    },

    async ensureSecret(purpose, candidate, created_at) {
      // The first node to ask stores its candidate; every node, that one included, reads back the stored one.
      await db.run('INSERT INTO service_secrets (purpose, secret, created_at) VALUES (?, ?, ?) ON CONFLICT (purpose) DO NOTHING', [
        purpose,
        candidate,
        created_at,
      ]);
      const r = await db.get<{ secret: Uint8Array }>('SELECT secret FROM service_secrets WHERE purpose = ?', [purpose]);
      if (!r) throw new Error(`the ${purpose} secret vanished right after it was stored`);
      return new Uint8Array(r.secret);
    },

    async countInWindow(w) {
      // One statement decides, whichever node counts: the row lock of the upsert orders concurrent counts,
      // and the WHERE stops at the limit (a refused event is not counted, so the count never passes it).
      const r = await db.get<{ count: number }>(
        `INSERT INTO rate_windows (bucket, window_start, count, expires_at) VALUES (?, ?, 1, ?)
         ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_windows.count + 1
         WHERE rate_windows.count < ?
         RETURNING count`,
        [w.bucket, w.window_start, w.expires_at, w.limit],
      );
      return r ? Number(r.count) : null;
    },

    async claimJob(name, now, period_ms, owner) {
      // The first node whose timer fires in a period runs the job; the others find last_run too recent.
      const n = await db.run(
        `INSERT INTO cluster_jobs (name, last_run, owner) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET last_run = excluded.last_run, owner = excluded.owner
         WHERE cluster_jobs.last_run <= ?`,
        [name, now, owner, now - period_ms],
      );
      return n > 0;
    },

    async claimFit(fit_key, o) {
      // Won when nobody runs this fit, or its runner stopped renewing (killed), or it is our own claim.
      const n = await db.run(
        `INSERT INTO fit_claims (fit_key, owner, lease_until) VALUES (?, ?, ?)
         ON CONFLICT (fit_key) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until
         WHERE fit_claims.lease_until < ? OR fit_claims.owner = excluded.owner`,
        [fit_key, o.owner, o.now + o.lease_ms, o.now],
      );
      return n > 0;
    },

    async renewFitClaim(fit_key, owner, lease_until) {
      return (await db.run('UPDATE fit_claims SET lease_until = ? WHERE fit_key = ? AND owner = ?', [lease_until, fit_key, owner])) > 0;
    },

    async releaseFitClaim(fit_key, owner) {
      return (await db.run('DELETE FROM fit_claims WHERE fit_key = ? AND owner = ?', [fit_key, owner])) > 0;
    },
  };
}

/** For the sweep: counters of windows that ended and claims nobody renews any more. */
export async function sweepCoordination(db: SqlClient, now: number): Promise<void> {
  await db.run('DELETE FROM rate_windows WHERE expires_at < ?', [now]);
  await db.run('DELETE FROM fit_claims WHERE lease_until < ?', [now]);
}
