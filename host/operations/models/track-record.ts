// svc_track_record (docs/reference/outcomes.md#track-record): how a model's calls matched the outcomes reported under it. Calls are
// the answers kept when each was issued (ask/keep-answers.ts) paired with reported outcomes by the rules
// in track-record-stats.ts. Read-only and free; an unknown model_ref, or one of another namespace or
// workspace, is 404 model_ref_missing; an expired model keeps its record, a deleted one is 410.
import { parseBody } from '../../schemas/index.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { namespaceOf, requireLink } from './model-links.ts';
import { EXAMPLE_IDS, FREE, READ_ONLY, type Operation } from '../operation.ts';
import { pairCalls, trackRecordOf, unpairedNoteOf } from './track-record-stats.ts';
import { modelWatchUrlOf } from '../../signing/watch-token.ts';
import { TrackRecordRequestSchema, TrackRecordResponseSchema } from './track-record.schema.ts';

/**
 * The track record of `modelRef` in `namespace` of the caller's workspace, without watch_url: what svc_track_record
 * answers and what its watch link shows (watch.ts), so the two never differ.
 */
export async function trackRecordBody(ctx: OpContext, modelRef: string, namespace: string): Promise<Record<string, unknown>> {
  const ws = ctx.caller!.workspaceId;
  await requireLink(ctx, modelRef, namespace, { use: 'record' });
  const { store } = ctx.services;
  // answers this process issued and has not written yet (answer-keeper.ts) count too
  await ctx.services.keptAnswers.flush();
  // outcomes first: an answer kept between the two reads has no outcome in this pairing anyway
  const outcomes = await store.listOutcomes(ws, modelRef);
  const kept = await store.keptAnswers(ws, modelRef);
  const { calls, unpaired, answeredLater } = pairCalls(outcomes, kept.withOutcome);
  const note = unpairedNoteOf(unpaired, answeredLater);
  return {
    model_ref: modelRef,
    answers_kept: kept.kept,
    records_since: kept.since === null ? null : new Date(kept.since).toISOString(),
    outcomes_without_an_earlier_answer: unpaired,
    outcomes_answered_later: answeredLater,
    ...(note ? { unpaired_note: note } : {}),
    ...trackRecordOf(calls),
  };
}

async function runTrackRecord(ctx: OpContext, raw: unknown): Promise<OpResult> {
  const req = parseBody(TrackRecordRequestSchema, raw);
  const namespace = namespaceOf(req.namespace);
  const body = await trackRecordBody(ctx, req.model_ref, namespace);
  // docs/reference/outcomes.md#watch: calibration and latest drift, viewable by any holder for 24 hours
  const watch = { workspaceId: ctx.caller!.workspaceId, namespace, modelRef: req.model_ref, kind: 'track_record' as const };
  return { status: 200, body: { ...body, watch_url: modelWatchUrlOf(ctx.services, watch, ctx.services.now()) } };
}

/** svc_track_record: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const trackRecordOperation: Operation = {
  name: 'svc_track_record',
  resource: 'models',
  path: '/v1/track-record',
  method: 'POST',
  auth: 'key',
  body: 'json',
  title: "A model's calls against real outcomes",
  description:
    'How the calls of a model (a model_ref an answered ask gave, in the namespace that ask named) matched the outcomes ' +
    'reported with svc_report_outcomes. Each answer is kept when issued (yesno and score cases, the top_k cases of a ' +
    'rank; never choice); each reported case is paired with the latest answer about it issued no later than the ' +
    "outcome's observation day (UTC), and a case reported twice counts once, with its latest outcome. Returns " +
    'answers_kept, records_since, outcomes_without_an_earlier_answer (of them outcomes_answered_later: cases answered ' +
    'only after the day their outcome was observed, which are no forecast), unpaired_note saying why when either is ' +
    'not 0, and overall, by_band, by_level and by_chance ' +
    '(deciles "0.0-0.1" to "0.9-1.0"), each with calls, happened, observed_rate, interval_95 (95% Wilson), ' +
    'mean_chance and small_n (under 100 calls). A well-calibrated model has observed_rate close to mean_chance in ' +
    'each range. watch_url shows this calibration and the latest drift of the model to anyone holding it, for 24 ' +
    'hours, with no key. ' +
    FREE,
  request: TrackRecordRequestSchema,
  response: TrackRecordResponseSchema,
  status: 200,
  pending: false,
  tool: READ_ONLY,
  examples: [
    {
      name: 'track_record',
      summary: 'The track record of the model of an answered ask (here the saas_churn ask), after reporting outcomes',
      value: { model_ref: EXAMPLE_IDS.modelRef },
    },
  ],
  run: runTrackRecord,
};
