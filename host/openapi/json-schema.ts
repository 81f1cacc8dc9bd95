// valibot -> JSON Schema 2020-12: the one converter behind the MCP tool schemas and the OpenAPI document.
import { toJsonSchema, type ConversionConfig } from '@valibot/to-json-schema';
import type * as v from 'valibot';

export type Json = Record<string, unknown>;

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/**
 * Cross-field rules (objectRule, exactlyOneSource in host/schemas) are raw checks, which JSON Schema cannot
 * express: they are skipped here and stated in words by the registry (`rules`). Anything else that cannot
 * be converted throws.
 */
export const SKIPPED_ACTIONS: readonly string[] = ['raw_check'];

/** JSON Schema's maxLength counts code points: exactly what host/schemas maxChars enforces. */
export const codePointLengths: NonNullable<ConversionConfig['overrideAction']> = ({ valibotAction, jsonSchema }) =>
  valibotAction.type === 'max_code_points'
    ? { ...jsonSchema, maxLength: (valibotAction as unknown as { requirement: number }).requirement }
    : undefined;

/** The JSON Schema of a wire schema; self-contained (its own `$schema` and `$defs`). */
export function jsonSchemaOf(schema: v.GenericSchema): Json {
  return toJsonSchema(schema, {
    target: 'draft-2020-12',
    errorMode: 'throw',
    ignoreActions: [...SKIPPED_ACTIONS],
    overrideAction: codePointLengths,
  }) as Json;
}

function rewriteRefs(node: unknown, rename: (ref: string) => string): unknown {
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, rename));
  if (typeof node !== 'object' || node === null) return node;
  const out: Json = {};
  for (const [k, val] of Object.entries(node)) out[k] = k === '$ref' && typeof val === 'string' ? rename(val) : rewriteRefs(val, rename);
  return out;
}

/**
 * Takes `$schema` and `$defs` out of a converted schema so it can sit inside a larger document: each
 * definition is renamed `<prefix>_<key>` and every `#/$defs/<key>` becomes `<base><prefix>_<key>`
 * (base `#/$defs/` inside one schema, `#/components/schemas/` in OpenAPI).
 */
export function hoistDefs(schema: Json, prefix: string, base: string): { schema: Json; defs: Record<string, Json> } {
  const { $schema: _dialect, $defs, ...rest } = schema;
  const rename = (ref: string) => (ref.startsWith('#/$defs/') ? `${base}${prefix}_${ref.slice('#/$defs/'.length)}` : ref);
  const defs: Record<string, Json> = {};
  for (const [key, def] of Object.entries(($defs ?? {}) as Record<string, Json>)) {
    defs[`${prefix}_${key}`] = rewriteRefs(def, rename) as Json;
  }
  return { schema: rewriteRefs(rest, rename) as Json, defs };
}
