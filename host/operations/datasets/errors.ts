// Errors shared by the dataset operations (spec 5.6, 7; wire.md "Problems").
import { ServiceError } from '../../errors.ts';
import type { Caller, OpContext } from '../../services.ts';

/** Spec 7: deleted (24 hours after last use), never stored, or another workspace's: all look the same. */
export function unknownDataset(id: string, field: string): ServiceError {
  return new ServiceError('unknown_dataset', `${field}: no dataset ${id} in this workspace; it was deleted or never stored here`, {
    field,
  });
}

/** Keyed operations always have a caller; a missing one is a wiring fault, answered as 401. */
export function requireCaller(ctx: OpContext): Caller {
  if (!ctx.caller) throw new ServiceError('unauthorized', 'This operation needs an API key; send Authorization: Bearer <key>.');
  return ctx.caller;
}

/** Spec 5.2: a test key works on sample datasets only, and stored datasets are never samples. */
export function refuseTestKey(caller: Caller): void {
  if (caller.mode === 'test') {
    throw new ServiceError(
      'test_key_samples_only',
      'a test key works on sample datasets only; storing or deleting datasets needs a live key',
    );
  }
}
