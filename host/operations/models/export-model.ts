// POST /v1/export-model: a fitted model of the caller's workspace as JSON, so the preview page (or
// any client running build/engine.wasm) scores new rows bit-identically to the service's scoring.
import * as v from 'valibot';
import { ServiceError } from '../../errors.ts';
import { ModelRefSchema, NamespaceSchema, parseBody } from '../../schemas/index.ts';
import { Model } from '../../engine/model.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { modelToJson } from '../../engine/model-json.ts';
import { EXAMPLE_IDS, FREE, type Operation } from '../operation.ts';
import { namespaceOf, requireModel } from './model-links.ts';
import { ExportModelRequestSchema, ExportModelResponseSchema, type ExportModelResponse } from './export-model.schema.ts';

async function runExportModel(ctx: OpContext, raw: unknown): Promise<OpResult> {
  const { model_ref, namespace } = parseBody(ExportModelRequestSchema, raw);
  // The model serves the page's scoring: an expired or deleted one is refused like a model_ref question.
  const rec = await requireModel(ctx, model_ref, namespaceOf(namespace), { use: 'serve' });
  const meta = JSON.parse(rec.meta) as { state?: ExportModelResponse['state']; quality?: ExportModelResponse['quality'] };
  if (rec.bytes.length === 0) {
    // not_yet (or no usable column): the fit made no model, so there is nothing to score with
    throw new ServiceError(
      'model_ref_missing',
      `model_ref ${model_ref} names a fit that holds no model (state ${meta.state ?? 'unknown'})`,
      {
        field: 'model_ref',
      },
    );
  }
  const model = Model.fromBytes(rec.bytes);
  const body: ExportModelResponse = {
    model_ref,
    core_hash: model.header.core_hash,
    state: meta.state ?? null,
    quality: meta.quality ?? null,
    model: modelToJson(model),
  };
  return { status: 200, body };
}

/** POST /v1/export-model: REST only (docs/reference/mcp.md's tools are the spec's operations), in the OpenAPI document. */
export const exportModelOperation: Operation = {
  name: 'export_model',
  resource: 'models',
  path: '/v1/export-model',
  method: 'POST',
  auth: 'key',
  body: 'json',
  title: 'Export a fitted model for browser scoring',
  description:
    'Returns a model this workspace was given a model_ref for (by an answered ask) as JSON: the header (column names, ' +
    'kinds and dictionaries) and the engine f64 array as base64. Loaded into the preview page at / (or any client ' +
    'running build/engine.wasm with this core_hash), it scores new rows bit-identically to the service. A model_ref ' +
    'of another workspace, or of a fit that made no model (not_yet), is model_ref_missing. ' +
    FREE,
  request: ExportModelRequestSchema,
  response: ExportModelResponseSchema,
  status: 200,
  examples: [
    { name: 'model', summary: 'The model_ref of an answered ask (here the saas_churn ask)', value: { model_ref: EXAMPLE_IDS.modelRef } },
  ],
  run: runExportModel,
};
