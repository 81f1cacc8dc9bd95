// export_model's request and reply: the model as JSON the preview page (or any client running the engine) reads.
import * as v from 'valibot';
import { ModelRefSchema, NamespaceSchema } from '../../schemas/common.ts';
import { QualitySchema } from '../ask/ask.schema.ts';

export const ExportModelRequestSchema = v.strictObject({ model_ref: ModelRefSchema, namespace: v.optional(NamespaceSchema) });

/** engine/model.ts ModelHeader: the column names and dictionaries that stay out of the wasm. */
const ModelHeaderSchema = v.strictObject({
  format: v.literal('oq-model'),
  version: v.literal(1),
  core_hash: v.string(),
  columns: v.array(
    v.strictObject({
      name: v.string(),
      kind: v.picklist(['numeric', 'categorical', 'unused']),
      dictionary: v.optional(v.array(v.string())),
    }),
  ),
});

/** engine/model-json.ts ModelJson: the header as it is and the f64 array as base64 of its little-endian bytes. */
export const ModelJsonSchema = v.strictObject({
  header: ModelHeaderSchema,
  array_base64: v.pipe(
    v.string(),
    v.regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/),
    v.description('Base64 (RFC 4648, padded) of the engine f64 model array, 8 little-endian bytes per number; it holds NaN.'),
  ),
});

export const ExportModelResponseSchema = v.strictObject({
  model_ref: ModelRefSchema,
  /** The engine that fitted it; a page or client must run build/engine.wasm of this core_hash to score alike. */
  core_hash: v.string(),
  state: v.nullable(v.picklist(['answered', 'refused', 'not_yet'])),
  quality: v.nullable(QualitySchema),
  model: ModelJsonSchema,
});

export type ExportModelResponse = v.InferOutput<typeof ExportModelResponseSchema>;
