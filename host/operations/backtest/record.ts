// The record a backtest reads (docs/reference/map.md#backtest data.dataset_id): a log record svc_map built in this workspace and
// namespace (the newest mapping that reads it), or a sample log read as its default mapping. The record is
// rebuilt with svc_map's own code (sources read, slots filled, the snapshots grid), so a backtest reads the
// very ask svc_map handed out.
import { ServiceError } from '../../errors.ts';
import type { OpContext } from '../../runtime/services.ts';
import { isSampleId } from '../ask/record.ts';
import { buildRecord, type Reading } from '../map/build.ts';
import { joinCandidates, layoutOf, offersOf } from '../map/proposal.ts';
import { fillSlots } from '../map/slots.ts';
import { analyseSource, readSources, type MapSource } from '../map/sources.ts';
import { RunAsTask } from '../../runtime/tasks.ts';
import type { MapAnswers } from '../map/map.schema.ts';

/**
 * A sample log with no mapping is read as svc_map would build it with this outcome and reading (docs/reference/journeys.md#journeys
 * "Try it"). customer_events at 60 days: its leavers fade out over the two months before they go.
 */
export const SAMPLE_LOGS: Readonly<Record<string, { offer: string; reading: Reading }>> = {
  'sample:customer_events': { offer: 'lapsed:customer_events', reading: { snapshot_every: '1w', horizon: { value: 60, unit: 'days' } } },
  'sample:coin_flip_events': {
    offer: 'event:coin_flip_events:won',
    reading: { snapshot_every: '1w', horizon: { value: 30, unit: 'days' } },
  },
};

export interface BacktestRecord {
  /** The svc_ask body svc_map built for the record (data, entity_column, time_column, shape, questions). */
  ask: Record<string, unknown> & {
    data: { dataset_id: string };
    entity_column: string;
    time_column: string;
    shape: Record<string, unknown> & { kind: 'snapshots' };
  };
  reading: Reading;
  /** The mapping it was built by; null for a sample log read by its default mapping. */
  mappingId: string | null;
  outcomeColumn: string;
}

interface KeptMapping {
  request: { sources: MapSource[]; answers: MapAnswers; reading: Reading; outcome_words?: string[] };
  manifest: { dataset_id?: string };
}

function notBuilt(id: string, why: string): ServiceError {
  return new ServiceError('dataset_not_built', `data.dataset_id: ${id} ${why}`, { field: 'data.dataset_id' });
}

/** svc_map's confirm up to the built record (nothing stored but what svc_map itself stores). */
async function rebuild(
  ctx: OpContext,
  sources: readonly MapSource[],
  answers: MapAnswers,
  reading: Reading,
  words: string[] | undefined,
  ns: string,
) {
  const all = (await readSources(ctx, sources)).map(analyseSource);
  const layout = layoutOf(all);
  const entities = new Map<string, string>();
  for (const a of all) {
    const e = answers.entity?.find((x) => x.source === a.src.label)?.column ?? a.entitySurvivors[0];
    if (e !== undefined) entities.set(a.src.label, e);
  }
  const offers = offersOf(layout, entities, words);
  const filled = fillSlots(answers, all, layout, offers, joinCandidates(layout, entities));
  if ('empty' in filled) return null;
  return buildRecord(ctx, layout, filled.slots, reading, ns === '' ? undefined : ns);
}

/** The record `dataset_id` names for a backtest in `namespace`, or dataset_not_built. */
export async function findBacktestRecord(
  ctx: OpContext,
  datasetId: string,
  namespace: string | undefined,
  opts: { quick?: boolean; mappingId?: string } = {},
): Promise<BacktestRecord> {
  const ns = namespace ?? '';
  const ws = ctx.caller!.workspaceId;
  const all = await ctx.services.store.listMappings(ws, ns);
  // mapping_id names the one to read; without it the newest that reads the log (the reply names it)
  const mappings = opts.mappingId === undefined ? all : all.filter((m) => m.mapping_id === opts.mappingId);
  if (opts.mappingId !== undefined && mappings.length === 0) {
    throw new ServiceError(
      'dataset_not_built',
      `mapping_id: ${opts.mappingId} is not a mapping svc_map made in this workspace${namespace ? ` (namespace ${namespace})` : ''}`,
      {
        field: 'mapping_id',
        remedy:
          'Send the mapping_id svc_map gave when it confirmed the record of this log, in the same namespace, or leave mapping_id out.',
      },
    );
  }
  // newest first: the latest mapping of a log is the record its owner last built
  for (const m of [...mappings].reverse()) {
    const kept = JSON.parse(m.request) as KeptMapping;
    const merged = kept.manifest?.dataset_id === datasetId;
    if (!merged && !kept.request.sources.some((s) => s.dataset_id === datasetId)) continue;
    // the request thread downloads nothing: a mapping with a fetch_url source is read by a task
    if (opts.quick && kept.request.sources.some((s) => s.fetch_url !== undefined)) throw new RunAsTask('a mapped source is downloaded');
    const built = await rebuild(ctx, kept.request.sources, kept.request.answers, kept.request.reading, kept.request.outcome_words, ns);
    if (!built || built.kind !== 'record') continue;
    const ask = built.ask as BacktestRecord['ask'];
    if (ask.shape?.kind !== 'snapshots') {
      throw notBuilt(
        datasetId,
        'was mapped as a table (one row per case, no time): a backtest needs a log record read through the snapshots grid',
      );
    }
    // a merged record is stored anew at each build (README decisions); the one named is the same bytes
    const data = merged ? { dataset_id: datasetId } : ask.data;
    if (!merged && data.dataset_id !== datasetId) continue;
    return { ask: { ...ask, data }, reading: kept.request.reading, mappingId: m.mapping_id, outcomeColumn: outcomeOf(ask) };
  }
  if (opts.mappingId !== undefined) {
    throw new ServiceError('dataset_not_built', `mapping_id: ${opts.mappingId} does not read ${datasetId}`, {
      field: 'mapping_id',
      remedy: 'Send the mapping_id of a mapping whose sources include this dataset_id, or leave mapping_id out.',
    });
  }
  const sample = SAMPLE_LOGS[datasetId];
  if (sample !== undefined) {
    const built = await rebuild(ctx, [{ dataset_id: datasetId }], { outcome: { offer_id: sample.offer } }, sample.reading, undefined, ns);
    if (built && built.kind === 'record') {
      const ask = built.ask as BacktestRecord['ask'];
      return { ask, reading: sample.reading, mappingId: null, outcomeColumn: outcomeOf(ask) };
    }
  }
  throw notBuilt(
    datasetId,
    isSampleId(datasetId)
      ? `is not a sample log a backtest reads unmapped (${Object.keys(SAMPLE_LOGS).join(', ')}); map it first with svc_map`
      : `is not a log record svc_map built in this workspace${namespace ? ` (namespace ${namespace})` : ''}; map the log with svc_map (sources and answers) first`,
  );
}

function outcomeOf(ask: BacktestRecord['ask']): string {
  const q = (ask.questions as Record<string, { outcome_column: string }>).q;
  return q.outcome_column;
}
