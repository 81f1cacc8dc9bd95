// Errors shared by the dataset operations (spec 5.6, 7; wire.md "Problems").
import { ServiceError } from '../../errors.ts';
import type { Caller, OpContext } from '../../services.ts';
import { SAMPLES } from '../../../samples/catalog.ts';
import { closestName } from '../ask/columns.ts';

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

/** Spec 5.2/5.3: what a test key cannot do, with how to get a live key ({keys_url}) as the remedy. */
export function testKeyRefusal(ctx: OpContext, detail: string): ServiceError {
  return new ServiceError('test_key_samples_only', detail, {
    remedy:
      `A live key comes from the operator of this service (see ${ctx.services.config.keysUrl}). ` +
      'With this test key, ask about a sample instead: data.dataset_id "sample:<name>", listed by POST /v1/describe.',
  });
}

/** Spec 5.2: a test key works on sample datasets only, and stored datasets are never samples. */
export function refuseTestKey(ctx: OpContext, caller: Caller): void {
  if (caller.mode === 'test')
    throw testKeyRefusal(ctx, 'a test key works on sample datasets only; storing or deleting datasets needs a live key');
}

/** A `sample:<name>` that is not a sample: the samples there are, and the closest name (a typo, not a deleted dataset). */
export function unknownSample(id: string, field: string): ServiceError {
  const names = SAMPLES.map((s) => s.name);
  const asked = id.slice('sample:'.length);
  const near = closestName(asked, names);
  return new ServiceError(
    'unknown_dataset',
    `${field}: there is no sample named ${JSON.stringify(asked)}${near ? `; did you mean "sample:${near}"?` : ''}`,
    {
      field,
      remedy: `Use one of the samples: ${names.map((n) => `sample:${n}`).join(', ')} (POST /v1/describe lists each with a ready ask).`,
    },
  );
}
