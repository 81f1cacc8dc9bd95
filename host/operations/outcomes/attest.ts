// svc_attest (docs/reference/outcomes.md#attest): records that a case was acted on through a
// lever, and the model that gave the lever judges compliance: the post-action value is binned by the
// engine with that model and complies when it lands in one of the lever's target bins (levers.ts).
import { ServiceError } from '../../errors.ts';
import { Model, NotScoreable, scoreCases } from '../../engine/index.ts';
import { parseBody } from '../../schemas/index.ts';
import type { Cell, RawTable } from '../../table/types.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { newId } from '../../lib/ids.ts';
import { verifyLeverToken } from '../../signing/lever-token.ts';
import { leverTargets } from '../../core/levers.ts';
import { parseIsoTime } from './report-outcomes.ts';
import { namespaceOf, requireModel } from '../models/model-links.ts';
import { EXAMPLE_IDS, FREE, type Operation } from '../operation.ts';
import { AttestRequestSchema, AttestResponseSchema } from './attest.schema.ts';

/** The engine's bin of `value` in model column `j` (every other column missing). */
export function binOfValue(ctx: OpContext, model: Model, j: number, value: Cell): number {
  const columns = model.usedColumns();
  const table: RawTable = { columns, data: columns.map((c) => [c === model.columns[j].name ? value : null]), rowCount: 1 };
  try {
    return scoreCases(ctx.services.engine, model, table).bins[j];
  } catch (err) {
    if (err instanceof NotScoreable) {
      throw new ServiceError(
        'invalid_request',
        `post_value: ${model.columns[j].name} is numeric in the model, so post_value must be a number`,
        {
          field: 'post_value',
          cause: err,
        },
      );
    }
    throw err;
  }
}

export async function runAttest(ctx: OpContext, raw: unknown): Promise<OpResult> {
  // The write:outcomes capability is checked by the transport (the declaration's `scope`, docs/reference/auth.md#capabilities).
  const workspaceId = ctx.caller!.workspaceId;
  const req = parseBody(AttestRequestSchema, raw);
  const { config, store, now } = ctx.services;
  const grant = verifyLeverToken(ctx.services.secrets, req.lever_token);
  if (grant.modelRef !== req.model_ref || grant.entityId !== req.entity_id) {
    throw new ServiceError(
      'invalid_request',
      `lever_token: this lever was given for case ${JSON.stringify(grant.entityId)} under ${grant.modelRef}, not for this model_ref and entity_id`,
      {
        field: 'lever_token',
      },
    );
  }
  const actedAt = parseIsoTime(req.acted_at);
  if (actedAt === null) {
    throw new ServiceError('invalid_request', `acted_at: ${JSON.stringify(req.acted_at)} is not an ISO 8601 date or date-time`, {
      field: 'acted_at',
    });
  }
  const rec = await requireModel(ctx, req.model_ref, namespaceOf(req.namespace), { use: 'record' });
  const model = rec.bytes.length > 0 ? Model.fromBytes(rec.bytes) : null;
  const desirable = (JSON.parse(rec.meta) as { desirable?: boolean | null }).desirable;
  const j = model ? model.columns.findIndex((c) => c.name === grant.feature) : -1;
  // A token verifies only if we signed it, so these hold unless the model store lost the fit.
  const targets = model && j >= 0 && typeof desirable === 'boolean' ? leverTargets(model, j, grant.bin, desirable) : null;
  if (!model || !targets || targets.direction !== grant.direction) {
    throw new ServiceError('invalid_request', 'lever_token: the lever no longer matches this model', { field: 'lever_token' });
  }
  const postBin = binOfValue(ctx, model, j, req.post_value);
  const res = await store.insertAttestation({
    workspace_id: workspaceId,
    model_ref: req.model_ref,
    entity_id: req.entity_id,
    feature: grant.feature,
    direction: grant.direction,
    compliant: targets.bins.includes(postBin),
    post_value: JSON.stringify(req.post_value),
    acted_at: actedAt,
    event_id: req.event_id ?? newId('att_'),
    created_at: now(),
  });
  // A repeated event_id answers with what was recorded the first time (docs/reference/README.md#idempotency: idempotent per event_id).
  const r = res.record;
  const body: Record<string, unknown> = {
    compliant: r.compliant,
    evaluated_feature: r.feature,
    evaluated_direction: r.direction,
    event_id: r.event_id,
    written: res.written,
  };
  if (r.entity_id === grant.entityId && r.feature === grant.feature) {
    const storedBin = res.written ? postBin : binOfValue(ctx, model, j, JSON.parse(r.post_value) as Cell);
    body.evaluation = {
      from: model.describeBin(j, grant.bin).text,
      to: model.describeBin(j, storedBin).text,
      ...(targets.values ? { values: targets.values } : {}),
    };
  }
  return { status: 200, body };
}

/** svc_attest: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const attestOperation: Operation = {
  name: 'svc_attest',
  resource: 'outcomes',
  path: '/v1/attest',
  method: 'POST',
  auth: 'key',
  body: 'json',
  scope: 'write:outcomes',
  title: 'Record that a case was acted on',
  description:
    "Records that a case was acted on through a lever (a lever_token from a case's levers in an answered ask) and the " +
    'value after acting; the engine judges compliance. Returns {compliant, evaluated_feature, evaluated_direction, ' +
    'event_id, written}. An event_id makes a retry safe. Needs the write:outcomes capability. ' +
    FREE,
  request: AttestRequestSchema,
  response: AttestResponseSchema,
  status: 200,
  pending: false,
  tool: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  examples: [
    {
      name: 'lever',
      summary:
        'Case cust_0001 was acted on through the lever_token its answer gave (an ask with outcome_is_desirable), and now has 2 tickets',
      value: {
        model_ref: EXAMPLE_IDS.modelRef,
        entity_id: 'cust_0001',
        lever_token: EXAMPLE_IDS.leverToken,
        post_value: 2,
        acted_at: '2025-06-02T09:30:00Z',
        event_id: 'act-2025-06-02-cust_0001',
      },
    },
  ],
  run: runAttest,
};
