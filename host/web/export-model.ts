// POST /v1/export-model: a fitted model of the caller's workspace as JSON, so the preview page (or
// any client running build/engine.wasm) scores new rows bit-identically to the service's scoring.
import * as v from 'valibot';
import { ServiceError } from '../http/problem.ts';
import { ModelRefSchema, parseBody } from '../schemas/index.ts';
import { Model } from '../engine/model.ts';
import type { OpContext, OpResult } from '../services.ts';
import { modelToJson } from './core/model-json.ts';

export const ExportModelRequestSchema = v.strictObject({ model_ref: ModelRefSchema });

export async function exportModelOperation(ctx: OpContext, raw: unknown): Promise<OpResult> {
  const { model_ref } = parseBody(ExportModelRequestSchema, raw);
  const rec = await ctx.services.store.getModelByRef(ctx.caller!.workspaceId, model_ref);
  if (!rec) {
    throw new ServiceError('unknown_model', `model_ref ${model_ref} was not given to this workspace by an answer`, { field: 'model_ref' });
  }
  const meta = JSON.parse(rec.meta) as { state?: string; quality?: unknown };
  if (rec.bytes.length === 0) {
    // not_yet (or no usable column): the fit made no model, so there is nothing to score with
    throw new ServiceError('unknown_model', `model_ref ${model_ref} names a fit that holds no model (state ${meta.state ?? 'unknown'})`, {
      field: 'model_ref',
    });
  }
  const model = Model.fromBytes(rec.bytes);
  return {
    status: 200,
    body: { model_ref, core_hash: model.header.core_hash, state: meta.state ?? null, quality: meta.quality ?? null, model: modelToJson(model) },
  };
}
