// svc_track_record (additions 2.1): how a model's calls matched the outcomes reported under it. Calls are
// the answers kept when each was issued (ask/keep-answers.ts) paired with reported outcomes by the rules
// in track-record-stats.ts. Read-only and free; an unknown model_ref, or one of another namespace or
// workspace, is 404 model_ref_missing; an expired model keeps its record, a deleted one is 410.
import { parseBody, REQUEST_SCHEMAS, RESPONSE_SCHEMAS, TrackRecordRequestSchema } from '../schemas/index.ts';
import type { OpContext, OpResult } from '../services.ts';
import { namespaceOf, requireLink } from './model-links.ts';
import { EXAMPLE_IDS, FREE, READ_ONLY, type Operation } from './operation.ts';
import { pairCalls, trackRecordOf } from './track-record-stats.ts';

async function runTrackRecord(ctx: OpContext, raw: unknown): Promise<OpResult> {
  const req = parseBody(TrackRecordRequestSchema, raw);
  const ws = ctx.caller!.workspaceId;
  await requireLink(ctx, req.model_ref, namespaceOf(req.namespace), { use: 'record' });
  const { store } = ctx.services;
  // answers this process issued and has not written yet (answer-keeper.ts) count too
  await ctx.services.keptAnswers.flush();
  // outcomes first: an answer kept between the two reads has no outcome in this pairing anyway
  const outcomes = await store.listOutcomes(ws, req.model_ref);
  const kept = await store.keptAnswers(ws, req.model_ref);
  const { calls, unpaired } = pairCalls(outcomes, kept.withOutcome);
  const body = {
    model_ref: req.model_ref,
    answers_kept: kept.kept,
    records_since: kept.since === null ? null : new Date(kept.since).toISOString(),
    outcomes_without_an_earlier_answer: unpaired,
    ...trackRecordOf(calls),
  };
  return { status: 200, body };
}

/** svc_track_record: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const trackRecordOperation: Operation = {
  name: 'svc_track_record',
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
    'answers_kept, records_since, outcomes_without_an_earlier_answer, and overall, by_band, by_level and by_chance ' +
    '(deciles "0.0-0.1" to "0.9-1.0"), each with calls, happened, observed_rate, interval_95 (95% Wilson), ' +
    'mean_chance and small_n (under 100 calls). A well-calibrated model has observed_rate close to mean_chance in ' +
    'each range. ' +
    FREE,
  request: REQUEST_SCHEMAS.svc_track_record,
  response: RESPONSE_SCHEMAS.svc_track_record,
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
