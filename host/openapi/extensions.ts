// Routes beyond spec 4 that take a JSON body, documented like operations (schemas, texts, examples):
// the model export behind the preview page. They are REST only; spec 4.13's tools are the spec's operations.
import type * as v from 'valibot';
import { EXAMPLE_IDS, type OperationExample } from '../operations/registry.ts';
import { ExportModelRequestSchema, ExportModelResponseSchema } from '../web/export-model.ts';

export interface ExtensionInfo {
  operationId: string;
  path: string;
  title: string;
  description: string;
  request: v.GenericSchema;
  response: v.GenericSchema;
  /** Component names (PascalCase) of the request and the reply. */
  component: string;
  examples: OperationExample[];
}

export const EXTENSIONS: readonly ExtensionInfo[] = [
  {
    operationId: 'export_model',
    path: '/v1/export-model',
    title: 'Export a fitted model for browser scoring',
    description:
      'Returns a model this workspace was given a model_ref for (by an answered ask) as JSON: the header (column names, ' +
      'kinds and dictionaries) and the engine f64 array as base64. Loaded into the preview page at / (or any client ' +
      'running build/engine.wasm with this core_hash), it scores new rows bit-identically to the service. A model_ref ' +
      'of another workspace, or of a fit that made no model (not_yet), is unknown_model. Free.',
    request: ExportModelRequestSchema,
    response: ExportModelResponseSchema,
    component: 'ExportModel',
    examples: [
      { name: 'model', summary: 'The model_ref of an answered ask (here the saas_churn ask)', value: { model_ref: EXAMPLE_IDS.modelRef } },
    ],
  },
];
