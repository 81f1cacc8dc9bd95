// svc_report_outcomes (docs/reference/outcomes.md#report): real outcomes of
// cases answered under a model_ref, validated all-or-nothing by default (422 invalid_outcomes lists every
// bad field of every item and nothing is written) or, with `partial: true`, the valid rows written and a
// result for every row; idempotent per event_id. Outcomes never change a model or an answer.
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { ServiceError } from '../../errors.ts';
import { describeIssue, issueField, LIMITS, ModelRefSchema, NamespaceSchema, parseBody } from '../../schemas/index.ts';
import { parseIso8601 } from '../../table/select.ts';
import type { OutcomeRecord } from '../../store/index.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { EXAMPLE_IDS, FREE, type Operation } from '../operation.ts';
import { namespaceOf, requireLink } from '../models/model-links.ts';
import { OutcomeItemSchema, ReportOutcomesRequestSchema, ReportOutcomesResponseSchema } from './report-outcomes.schema.ts';

/** The top level only: items are checked one by one so every bad item is reported with its index. */
const ReportEnvelopeSchema = v.strictObject({
  model_ref: ModelRefSchema,
  namespace: v.optional(NamespaceSchema),
  outcomes: v.pipe(v.array(v.unknown()), v.minLength(1), v.maxLength(LIMITS.outcomesMax)),
  partial: v.optional(v.boolean()),
});

/** docs/reference/outcomes.md#report: one result per row of a partial report, in row order. */
export interface OutcomeRowResult {
  index: number;
  status: 'written' | 'duplicate' | 'error';
  field?: string;
  detail?: string;
}

export interface OutcomeError {
  index: number;
  field: string;
  detail: string;
}

/**
 * Epoch ms of an ISO 8601 date or date-time (docs/reference/tasks.md#events observed_at), extended (2024-03-15T10:00Z) or
 * basic (20240315, 20240315T1000Z) form, read as table cells are (host/table/select.ts); null when
 * it is neither (a bare number like 1718000000 is not a time here).
 */
export function parseIsoTime(s: string): number | null {
  return parseIso8601(s);
}

const YES = new Set(['1', 'true', 'yes', 'y']);
const NO = new Set(['0', 'false', 'no', 'n']);

/** docs/reference/tasks.md#events: yes/no as a boolean, 0/1, or a yes/no word (any case). */
export function outcomeValue(x: unknown): 0 | 1 | null {
  if (typeof x === 'boolean') return x ? 1 : 0;
  if (typeof x === 'number') return x === 1 ? 1 : x === 0 ? 0 : null;
  if (typeof x === 'string') {
    const w = x.trim().toLowerCase();
    return YES.has(w) ? 1 : NO.has(w) ? 0 : null;
  }
  return null;
}

/** The key of an item sent without event_id: the same report of the same case at the same time is one fact. */
export function derivedEventId(entityId: string, outcome: 0 | 1, observedAt: number): string {
  return `auto:${createHash('sha256')
    .update(JSON.stringify([entityId, outcome, observedAt]))
    .digest('hex')}`;
}

/**
 * Every problem of every item (an item can have several), in index order; the valid items as records,
 * with the index each came from (`recordIndex`).
 */
export function checkOutcomeItems(items: readonly unknown[], modelRef: string, workspaceId: string, now: number) {
  const errors: OutcomeError[] = [];
  const records: OutcomeRecord[] = [];
  const recordIndex: number[] = [];
  items.forEach((item, index) => {
    const parsed = v.safeParse(OutcomeItemSchema, item);
    if (!parsed.success) {
      for (const issue of parsed.issues) {
        errors.push({ index, field: issueField(issue) ?? '', detail: describeIssue(issue) });
      }
      return;
    }
    const o = parsed.output;
    const outcome = outcomeValue(o.outcome);
    if (outcome === null) {
      errors.push({ index, field: 'outcome', detail: `${JSON.stringify(o.outcome)} is not yes/no (use true/false, 0/1 or "yes"/"no")` });
    }
    const observedAt = parseIsoTime(o.observed_at);
    if (observedAt === null) {
      errors.push({ index, field: 'observed_at', detail: `${JSON.stringify(o.observed_at)} is not an ISO 8601 date or date-time` });
    }
    if (outcome !== null && observedAt !== null) {
      records.push({
        workspace_id: workspaceId,
        model_ref: modelRef,
        entity_id: o.entity_id,
        outcome,
        observed_at: observedAt,
        // docs/reference/outcomes.md#report: event_id is the item's idempotency key. An item sent without one is keyed by what it
        // says (case, outcome, observation time), so a batch sent twice is counted once, not twice.
        event_id: o.event_id ?? derivedEventId(o.entity_id, outcome, observedAt),
        created_at: now,
      });
      recordIndex.push(index);
    }
  });
  return { errors, records, recordIndex };
}

/** An item's field as a Problem names it: `outcomes.<i>.<field>`, or `outcomes.<i>` for the item itself. */
const itemField = (e: OutcomeError) => (e.field === '' ? `outcomes.${e.index}` : `outcomes.${e.index}.${e.field}`);

/**
 * docs/reference/outcomes.md#report `partial: true`: every row's result in row order. A row with several bad fields is one
 * `error` result naming its first bad field, its detail listing every problem.
 */
export function rowResults(
  count: number,
  errors: readonly OutcomeError[],
  recordIndex: readonly number[],
  writtenEach: readonly boolean[],
) {
  const results: OutcomeRowResult[] = new Array(count);
  recordIndex.forEach((index, r) => (results[index] = { index, status: writtenEach[r] ? 'written' : 'duplicate' }));
  for (const e of errors) {
    const seen = results[e.index];
    if (seen) seen.detail = `${seen.detail}; ${e.field === '' ? '' : `${e.field}: `}${e.detail}`;
    else
      results[e.index] = {
        index: e.index,
        status: 'error',
        field: itemField(e),
        detail: `${e.field === '' ? '' : `${e.field}: `}${e.detail}`,
      };
  }
  return results;
}

export async function runReportOutcomes(ctx: OpContext, raw: unknown): Promise<OpResult> {
  // The write:outcomes capability is checked by the transport (the declaration's `scope`, docs/reference/outcomes.md#report).
  const workspaceId = ctx.caller!.workspaceId;
  const req = parseBody(ReportEnvelopeSchema, raw);
  // docs/reference/models.md#delete: a deleted model takes no reports; an expired one does (outcomes arrive after it served)
  await requireLink(ctx, req.model_ref, namespaceOf(req.namespace), { use: 'record' });
  const { errors, records, recordIndex } = checkOutcomeItems(req.outcomes, req.model_ref, workspaceId, ctx.services.now());
  if (req.partial === true) {
    const { written, duplicates, written_each } = await ctx.services.store.writeOutcomes(records);
    return { status: 200, body: { written, duplicates, results: rowResults(req.outcomes.length, errors, recordIndex, written_each) } };
  }
  if (errors.length > 0) {
    const bad = new Set(errors.map((e) => e.index)).size;
    throw new ServiceError('invalid_outcomes', `${bad} of ${req.outcomes.length} outcome(s) are invalid; nothing was written`, {
      field: 'outcomes',
      extra: { errors: errors.map((e) => ({ ...e, field: itemField(e) })) },
    });
  }
  const { written, duplicates } = await ctx.services.store.writeOutcomes(records);
  return { status: 200, body: { written, duplicates } };
}

/** svc_report_outcomes: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const reportOutcomesOperation: Operation = {
  name: 'svc_report_outcomes',
  resource: 'outcomes',
  path: '/v1/report-outcomes',
  method: 'POST',
  auth: 'key',
  body: 'json',
  scope: 'write:outcomes',
  title: 'Report real outcomes',
  description:
    'Records the real outcomes of cases answered under a model_ref (from an answered ask). Outcomes are evidence about ' +
    "the model's track record (svc_track_record); they never change a model or an answer. All or nothing by default: " +
    'one bad item rejects the call (invalid_outcomes lists each bad field); with partial: true the valid items are ' +
    'written and results[] gives every item its status (written, duplicate or error with field and detail). Give each ' +
    'item an event_id so a retry counts it as a duplicate, not twice. entity_id: letters, digits and _ . : @ # + / -, ' +
    'at most 128. Returns {written, duplicates}. Needs a key with the write:outcomes capability (Can report outcomes). ' +
    FREE,
  request: ReportOutcomesRequestSchema,
  response: ReportOutcomesResponseSchema,
  status: 200,
  pending: false,
  // Idempotent only per event_id (docs/reference/README.md#idempotency), so not in general.
  tool: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  examples: [
    {
      name: 'outcomes',
      summary: 'What really happened to two cases answered under a model_ref (here the saas_churn ask), each with an event_id',
      value: {
        model_ref: EXAMPLE_IDS.modelRef,
        outcomes: [
          { entity_id: 'cust_0001', outcome: true, observed_at: '2025-07-01T00:00:00Z', event_id: 'renewal-2025-07-cust_0001' },
          { entity_id: 'cust_0002', outcome: 0, observed_at: '2025-07-01', event_id: 'renewal-2025-07-cust_0002' },
        ],
      },
    },
    {
      name: 'partial',
      summary:
        'Write what is valid and get a result per row (docs/reference/outcomes.md#report): here the second row is an error (observed_at is no date)',
      value: {
        model_ref: EXAMPLE_IDS.modelRef,
        partial: true,
        outcomes: [
          { entity_id: 'cust_0003', outcome: 'yes', observed_at: '2025-07-02', event_id: 'renewal-2025-07-cust_0003' },
          { entity_id: 'cust_0004', outcome: 'no', observed_at: 'last tuesday' },
        ],
      },
    },
  ],
  run: runReportOutcomes,
};
