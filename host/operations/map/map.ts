// svc_map (docs/reference/map.md#map): sources (a lone table, or one or two event logs plus an optional table) to a
// record. Without answers: a proposal, stores nothing. With answers: the built record, its mapping_id
// (kept per workspace and namespace) and a ready ask for today's open cases. With mapping_id: a replay.
import { createHash } from 'node:crypto';
import { ServiceError } from '../../errors.ts';
import { parseBody } from '../../schemas/index.ts';
import { canonicalJson } from '../../signing/index.ts';
import { parseIso8601 } from '../../table/select.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { CONTRACT } from '../../core/contract.ts';
import { FREE, type Operation } from '../operation.ts';
import { badAsOf, buildRecord, closedSince, type Reading } from './build.ts';
import { joinCandidates, layoutOf, offersOf, proposalBody, type ProposalParts } from './proposal.ts';
import { fillSlots } from './slots.ts';
import { analyseSource, defaultLabel, readSources, type MapSource, type SourceAnalysis } from './sources.ts';
import { headersOf, openHeaders, sealHeaders } from '../../signing/sealed-headers.ts';
import { type MapRequest, MapRequestSchema, MapResponseSchema } from './map.schema.ts';

/** docs/reference/map.md#map: at most 3 horizons per record (per set of sources, workspace and namespace). */
export const HORIZON_BUDGET = 3;

interface Kept {
  request: {
    sources: MapSource[];
    answers: NonNullable<MapRequest['answers']>;
    reading: Reading;
    outcome_words?: string[];
    /** docs/reference/map.md#map: the sources' fetch_headers, sealed (sealed-headers.ts); never echoed. */
    sealed_headers?: string;
  };
  manifest: Record<string, unknown>;
}

/** What a scheduled run's map step learns beside the reply (docs/reference/schedules.md#runs). */
export interface ReplaySeen {
  labelledHash?: string;
}

function provenance(ctx: OpContext) {
  return { core_hash: ctx.services.engine.coreHash, contract_hash: createHash('sha256').update(CONTRACT).digest('hex') };
}

function namespaceOf(req: MapRequest): string {
  return req.namespace ?? '';
}

async function analyse(ctx: OpContext, sources: readonly MapSource[], answers: MapRequest['answers'], words?: string[]) {
  const read = await readSources(ctx, sources);
  const all: SourceAnalysis[] = read.map(analyseSource);
  const layout = layoutOf(all);
  // the entity each source is read by, for offers and join keys: the answer, else the first survivor
  const entities = new Map<string, string>();
  for (const a of all) {
    const given = answers?.entity?.find((e) => e.source === a.src.label)?.column;
    const e = given ?? a.entitySurvivors[0];
    if (e !== undefined) entities.set(a.src.label, e);
  }
  const parts: ProposalParts = { layout, offers: offersOf(layout, entities, words), joinKeys: joinCandidates(layout, entities) };
  return { all, parts };
}

export async function runMap(ctx: OpContext, raw: unknown): Promise<OpResult> {
  const req = parseBody(MapRequestSchema, raw);
  if (req.as_of !== undefined && parseIso8601(req.as_of) === null) throw badAsOf('as_of');
  if (req.closed_since !== undefined && parseIso8601(req.closed_since) === null) throw badAsOf('closed_since');
  if (req.mapping_id !== undefined) return replay(ctx, req);
  const reading: Reading = {
    snapshot_every: req.snapshot_every ?? '1w',
    horizon: req.horizon ?? { value: 30, unit: 'days' },
    ...(req.as_of !== undefined ? { as_of: req.as_of } : {}),
  };
  const { all, parts } = await analyse(ctx, req.sources!, req.answers, req.outcome_words);
  const base = { provenance: provenance(ctx) };
  if (req.answers === undefined) {
    const body = proposalBody(parts, all);
    return { status: 200, body: { ...body, ...base, next: proposalNext(parts) } };
  }
  return confirm(
    ctx,
    req,
    { sources: req.sources!, answers: req.answers, reading, ...(req.outcome_words ? { outcome_words: req.outcome_words } : {}) },
    all,
    parts,
  );
}

function proposalNext(parts: ProposalParts): unknown[] {
  return [
    {
      operation: 'svc_map',
      with: { answers: parts.offers.shown.length > 0 ? { outcome: { offer_id: parts.offers.shown[0].offer_id } } : {} },
      cost: 'free',
      gives: 'the built record, its mapping_id and a ready ask (send the same sources with answers; {} takes every slot with one option)',
    },
  ];
}

function sourcesKey(sources: readonly MapSource[]): string {
  return canonicalJson(sources.map((s) => (s.dataset_id !== undefined ? { dataset_id: s.dataset_id } : { fetch_url: s.fetch_url })));
}

async function confirm(
  ctx: OpContext,
  req: MapRequest,
  kept: Kept['request'],
  all: SourceAnalysis[],
  parts: ProposalParts,
  replayOf?: string,
  seen?: ReplaySeen,
) {
  const base = { provenance: provenance(ctx) };
  const filled = fillSlots(kept.answers, all, parts.layout, parts.offers, parts.joinKeys);
  if ('empty' in filled) return { status: 200, body: { status: 'empty', empty_reason: filled.empty, ...base, next: [] } };
  const { slots } = filled;
  const ws = ctx.caller!.workspaceId;
  const ns = namespaceOf(req);
  // the answers as filled (every slot named), so the id names what was built
  const resolved = {
    entity: [...slots.entity].map(([source, column]) => ({ source, column })),
    ...(slots.time.size > 0 ? { time_column: [...slots.time].map(([source, column]) => ({ source, column })) } : {}),
    outcome: { offer_id: slots.outcome.offer_id },
    ...(slots.join ? { join: slots.join } : {}),
  };
  const stripped = kept.sources.map(({ fetch_headers: _h, ...s }) => s);
  const identity = canonicalJson({ ns, sources: stripped, answers: resolved, reading: kept.reading });
  const mappingId = replayOf ?? `mp_${createHash('sha256').update(identity).digest('hex').slice(0, 32)}`;
  if (replayOf === undefined && parts.layout.mode === 'logs') await checkHorizonBudget(ctx, ws, ns, kept, mappingId);
  const built = await buildRecord(ctx, parts.layout, slots, kept.reading, req.namespace);
  if (built.kind === 'not_runnable') {
    const proposal = proposalBody(parts, all);
    return {
      status: 200,
      body: {
        status: 'not_runnable',
        outcome: { offer_id: slots.outcome.offer_id, code: built.code, why: built.why },
        proposal,
        ...base,
        next: [],
      },
    };
  }
  const manifest = {
    mapping_id: mappingId,
    sources: all.map((a) => ({
      ...a.src.ref,
      label: a.src.label,
      rows: a.src.table.rowCount,
      content_hash: a.src.contentHash,
      grain: a.grain.kind,
    })),
    answers: resolved,
    reading: kept.reading,
    built: built.how,
    ...(built.datasetId ? { dataset_id: built.datasetId } : {}),
  };
  if (seen) seen.labelledHash = built.labelledHash;
  if (replayOf === undefined) {
    const headers = headersOf(kept.sources);
    const sealed = headers ? { sealed_headers: sealHeaders(ctx.services.secrets.headers, headers) } : {};
    const record: Kept = { request: { ...kept, sources: stripped, answers: resolved, ...sealed }, manifest };
    await ctx.services.store.putMapping({
      workspace_id: ws,
      namespace: ns,
      mapping_id: mappingId,
      request: JSON.stringify(record),
      created_at: ctx.services.now(),
    });
  }
  const { ask, askNotes } = readyAsk(built.ask, built.openCases.count);
  const body: Record<string, unknown> = {
    status: 'confirmed',
    mapping_id: mappingId,
    ...(built.datasetId ? { dataset_id: built.datasetId } : {}),
    record: built.record,
    manifest,
    open_cases: built.openCases,
    ask,
    ask_notes: askNotes,
  };
  if (req.closed_since !== undefined) {
    const since = parseIso8601(req.closed_since)!;
    const c = built.shaped ? closedSince(built.shaped, kept.reading.horizon.value, since) : { closed: [], omitted: 0 };
    body.closed = c.closed;
    body.closed_omitted = c.omitted;
  }
  body.provenance = base.provenance;
  body.next = [
    {
      operation: 'svc_ask',
      with: ask,
      cost: 'a fit (the first 1,000 a month are free, samples always) and one decision per answered case',
      gives: "chances for today's open cases (subject_kind is other unless you say what a case is: see ask_notes)",
    },
    {
      operation: 'svc_map',
      with: { mapping_id: mappingId, closed_since: '<ISO 8601>' },
      cost: 'free',
      gives: 'the readings whose label became known since then',
    },
  ];
  return { status: 200, body };
}

async function checkHorizonBudget(ctx: OpContext, ws: string, ns: string, kept: Kept['request'], mappingId: string): Promise<void> {
  const key = sourcesKey(kept.sources);
  const horizons = new Set<number>();
  for (const m of await ctx.services.store.listMappings(ws, ns)) {
    if (m.mapping_id === mappingId) return;
    const k = (JSON.parse(m.request) as Kept).request;
    if (sourcesKey(k.sources) === key) horizons.add(k.reading.horizon.value);
  }
  if (!horizons.has(kept.reading.horizon.value) && horizons.size >= HORIZON_BUDGET) {
    throw new ServiceError(
      'horizon_budget_exhausted',
      `horizon: these sources are already mapped at ${HORIZON_BUDGET} horizons (${[...horizons].sort((a, b) => a - b).join(', ')} days); a record takes at most ${HORIZON_BUDGET}`,
      { field: 'horizon', extra: { horizons_used: [...horizons].sort((a, b) => a - b) } },
    );
  }
}

async function replay(ctx: OpContext, req: MapRequest): Promise<OpResult> {
  const kept = await keptMapping(ctx, namespaceOf(req), req.mapping_id!);
  for (const key of ['snapshot_every', 'horizon', 'as_of', 'answers', 'outcome_words'] as const) {
    if (req[key] !== undefined) {
      throw new ServiceError(
        'invalid_request',
        `${key}: a replay keeps the mapping's own; changing it makes a new mapping (send sources with answers)`,
        {
          field: key,
        },
      );
    }
  }
  let analysed;
  try {
    analysed = await analyse(ctx, kept.request.sources, kept.request.answers, kept.request.outcome_words);
  } catch (err) {
    if (err instanceof ServiceError && (err.code === 'unknown_dataset' || err.code === 'fetch_failed')) {
      throw new ServiceError('mapping_expired', `${err.field ?? 'sources'}: a source of ${req.mapping_id} is gone (${err.message})`, {
        field: 'mapping_id',
        extra: { manifest: kept.manifest },
        cause: err,
      });
    }
    throw err;
  }
  return confirm(ctx, req, kept.request, analysed.all, analysed.parts, req.mapping_id);
}

/** A kept mapping with its sources' fetch_headers opened again (for fetching only; never echoed). */
function keptWithHeaders(ctx: OpContext, text: string): Kept {
  const kept = JSON.parse(text) as Kept;
  if (kept.request.sealed_headers === undefined) return kept;
  const headers = openHeaders(ctx.services.secrets.headers, kept.request.sealed_headers);
  const sources = kept.request.sources.map((s, i) => (headers[String(i)] ? { ...s, fetch_headers: headers[String(i)] } : s));
  return { ...kept, request: { ...kept.request, sources } };
}

/** A kept mapping of the workspace and namespace, or unknown_mapping naming `field`. */
export async function keptMapping(ctx: OpContext, namespace: string, mappingId: string, field = 'mapping_id'): Promise<Kept> {
  const row = await ctx.services.store.getMapping(ctx.caller!.workspaceId, namespace, mappingId);
  if (!row) {
    throw new ServiceError(
      'unknown_mapping',
      `${field}: ${mappingId} is not a mapping of this workspace${namespace ? ` in namespace ${namespace}` : ''}`,
      { field },
    );
  }
  return keptWithHeaders(ctx, row.request);
}

/**
 * A scheduled run's map step (docs/reference/schedules.md#runs): the mapping replayed with each source read from `datasets`
 * (index -> dataset_id: what this run fetched and stored, so every later step reads the same bytes), each
 * source keeping its own label, so the record and its column names are the mapping's own.
 */
export async function replayForRun(
  ctx: OpContext,
  namespace: string,
  mappingId: string,
  datasets: readonly string[],
  closedSinceAt: string | undefined,
  seen: ReplaySeen,
): Promise<OpResult> {
  const kept = await keptMapping(ctx, namespace, mappingId);
  const sources = kept.request.sources.map((s, i) => ({ dataset_id: datasets[i], label: s.label ?? defaultLabel(s) }));
  const analysed = await analyse(ctx, sources, kept.request.answers, kept.request.outcome_words);
  const req: MapRequest = {
    mapping_id: mappingId,
    ...(namespace ? { namespace } : {}),
    ...(closedSinceAt !== undefined ? { closed_since: closedSinceAt } : {}),
  };
  return confirm(ctx, req, { ...kept.request, sources }, analysed.all, analysed.parts, mappingId, seen);
}

/** svc_map: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
/**
 * The ask svc_map hands out, sendable as it is (docs/guides/map-your-tables.md "The ready ask"): subject_kind is
 * not in the sources, so it is `other`, and `ask_notes` says why and when to change it; with no open case
 * (every row's outcome known) cases.open would answer nothing, and the notes say so and what to send instead.
 */
export function readyAsk(
  built: Record<string, unknown>,
  openCount: number,
): { ask: Record<string, unknown>; askNotes: Record<string, string> } {
  const { data, entity_column, ...rest } = built;
  const ask = { data, entity_column, subject_kind: 'other', ...rest };
  const askNotes: Record<string, string> = {
    subject_kind:
      'other: the sources do not say what a case is. Send person (with acknowledge_decision_support: true) when each ' +
      'case is a person, which turns on the decision-support safeguards; org or object when it is one.',
  };
  if (openCount === 0) {
    askNotes.cases =
      'No open case: every row has its outcome, so cases: {open: true} answers none. Add rows whose outcome is still ' +
      'blank, or send cases: {ids: [...]} or cases: {rows: [...]} to ask about particular cases.';
  }
  return { ask, askNotes };
}

export const mapOperation: Operation = {
  name: 'svc_map',
  resource: 'map',
  path: '/v1/map',
  method: 'POST',
  auth: 'key',
  body: 'json',
  title: 'Map tables and event logs to a record',
  description:
    'Builds a record from up to three sources (dataset_id or fetch_url each): a lone table, or one or two event ' +
    'logs plus an optional table. Without answers it proposes (stores nothing): per source its grain, entity and ' +
    'time candidates and resolutions; outcome offers (column, event_type, outcome_time, lapsed); the join; and ' +
    'questions for the user where a slot has two or more options. With answers ({} takes every slot with one ' +
    'option) it returns status confirmed with mapping_id, record, manifest, open_cases and ask: the svc_ask body ' +
    "for today's open cases (subject_kind other, and ask_notes say why and when no case is open). Logs are read as a row per case per snapshot_every (1w) with the " +
    'outcome within horizon (30 days) after each reading. mapping_id replays it (closed_since adds the readings ' +
    'closed since). not_runnable: the outcome fails its gate at this horizon; empty: a slot has no option. ' +
    FREE,
  rules:
    'Also required, beyond what the input schema says: sources unless mapping_id is given (then sources, answers, ' +
    'snapshot_every, horizon, as_of and outcome_words are not allowed); closed_since only with mapping_id; each source ' +
    'has exactly one of dataset_id, fetch_url (fetch_headers only with fetch_url).',
  request: MapRequestSchema,
  response: MapResponseSchema,
  status: 200,
  pending: false,
  // additions: a proposal is read-only, a confirm is not idempotent; the tool is described by its writes
  tool: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  examples: [
    {
      name: 'proposal',
      summary: 'What the customer_events sample log can become',
      value: { sources: [{ dataset_id: 'sample:customer_events' }] },
    },
    {
      name: 'confirm',
      summary: 'Build the record: customers who lapse within 30 days of a weekly reading',
      value: { sources: [{ dataset_id: 'sample:customer_events' }], answers: { outcome: { offer_id: 'lapsed:customer_events' } } },
    },
  ],
  run: runMap,
};
