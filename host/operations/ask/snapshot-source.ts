// docs/reference/map.md#snapshots snapshots table form: reads the snapshot table named by `shape.snapshots` (a sample, a stored
// dataset, inline rows or csv, or a fetch_url) as the ask's record is read, its errors naming shape.snapshots.
import { ServiceError } from '../../errors.ts';
import type { AskRequest } from '../../schemas/index.ts';
import type { RawTable } from '../../table/types.ts';
import type { OpContext } from '../../runtime/services.ts';
import { assertKeyMayUse, resolveRecord } from './record.ts';

export async function resolveSnapshotSource(
  ctx: OpContext,
  ask: AskRequest,
  opts: { quick?: boolean } = {},
): Promise<{ table: RawTable; contentHash: string } | undefined> {
  const shape = ask.shape;
  if (shape?.kind !== 'snapshots' || shape.snapshots === undefined) return undefined;
  assertKeyMayUse(ctx, shape.snapshots);
  try {
    const rec = await resolveRecord(ctx, shape.snapshots, opts);
    return { table: rec.table, contentHash: rec.contentHash };
  } catch (err) {
    if (err instanceof ServiceError && err.field?.startsWith('data.')) {
      const field = `shape.snapshots.${err.field.slice('data.'.length)}`;
      throw new ServiceError(err.code, err.message.replaceAll('data.', 'shape.snapshots.'), {
        field,
        extra: err.extra,
        headers: err.headers,
        remedy: err.remedy,
        cause: err,
      });
    }
    throw err;
  }
}
