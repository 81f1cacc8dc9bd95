// Errors shared by the dataset operations (docs/reference/auth.md#workspaces, docs/reference/errors.md; docs/reference/errors.md#problem).
import { ServiceError } from '../../errors.ts';
import type { Caller, OpContext } from '../../runtime/services.ts';
import { SAMPLES } from '../../../samples/catalog.ts';
import { closestName } from '../../core/columns.ts';

/** docs/reference/errors.md: deleted (24 hours after last use), never stored, or another workspace's: all look the same. */
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

/** docs/reference/auth.md#test-keys/5.3: what a test key cannot do, with how to get a live key ({keys_url}) as the remedy. */
export function testKeyRefusal(ctx: OpContext, detail: string): ServiceError {
  return new ServiceError('test_key_samples_only', detail, {
    remedy:
      `A live key comes from the operator of this service (see ${ctx.services.config.keysUrl}). ` +
      'With this test key, ask about a sample instead: data.dataset_id "sample:<name>", listed by POST /v1/describe.',
  });
}

/** docs/reference/auth.md#test-keys: a test key works on sample datasets only, and stored datasets are never samples. */
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

/** Delimiters a CSV meant for us may have been written with instead of commas (RFC 4180). */
const OTHER_DELIMITERS: Array<[string, string]> = [
  [';', 'semicolons'],
  ['\t', 'tabs'],
  ['|', 'vertical bars'],
];

/**
 * docs/guides/overload.md: a table that no ask could use is refused when it is stored, not found out at the first ask: no
 * data rows (a header alone), or one column (most often a file separated by something other than commas).
 * `newDataset`: the piece makes the dataset, so its own columns are judged (a later piece has the dataset's).
 */
export function assertUsableTable(columns: readonly string[], rowCount: number, field: string, newDataset: boolean): void {
  if (rowCount === 0) {
    throw new ServiceError('invalid_request', `${field}: the table has a header row but no data rows; nothing was stored`, {
      field,
      remedy: 'Send the data rows below the header (one row per case, comma-separated, the same fields as the header).',
    });
  }
  if (!newDataset || columns.length !== 1) return;
  const name = columns[0];
  const shown = JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}...` : name);
  const other = OTHER_DELIMITERS.find(([d]) => name.includes(d));
  if (other) {
    throw new ServiceError(
      'invalid_request',
      `${field}: the table has a single column named ${shown}; its header holds ${other[1]}, so the file is most likely separated by ${other[1]}, not commas; nothing was stored`,
      { field, remedy: `Save or export the file with commas between fields (RFC 4180 CSV), then store it again.` },
    );
  }
  throw new ServiceError('invalid_request', `${field}: the table has a single column (${shown}); nothing was stored`, {
    field,
    remedy: 'Store a table with at least an id column and an outcome column, beside the columns that may explain the outcome.',
  });
}
