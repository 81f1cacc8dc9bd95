// Checks a real reply against the schema /openapi.json serves for it, strictly: besides what the schema
// says, no object may carry a field its schema does not declare. The served schemas leave undeclared
// fields open (a client must ignore what it does not know), so this test helper closes every described
// object of the document's components (`unevaluatedProperties: false`) before it validates; objects the
// service declares open (maps, records) keep their `additionalProperties`.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';

type Json = Record<string, unknown>;

/** `schema` with every object that lists `properties` and says nothing of other fields closed to them. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [k, val] of Object.entries(schema)) out[k] = k === 'properties' ? mapValues(val as Json, closed) : closed(val);
  if ('properties' in out && !('additionalProperties' in out) && !('unevaluatedProperties' in out)) out.unevaluatedProperties = false;
  return out;
}

const mapValues = (o: Json, f: (x: unknown) => unknown): Json => Object.fromEntries(Object.entries(o).map(([k, x]) => [k, f(x)]));

export interface StrictReplies {
  /** The problems of `body` as the reply of `method path` with `status`: [] when it matches and declares every field. */
  check(path: string, method: string, status: number, body: unknown): string[];
}

/** A checker over a served OpenAPI document (the reply schemas of its paths, components closed). */
export function strictReplies(doc: Json): StrictReplies {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const components = { ...(doc.components as Json), schemas: mapValues((doc.components as Json).schemas as Json, closed) };
  const compiled = new Map<string, ValidateFunction>();
  return {
    check(path, method, status, body) {
      const key = `${method} ${path} ${status}`;
      let validate = compiled.get(key);
      if (!validate) {
        const op = ((doc.paths as Json)[path] as Json | undefined)?.[method.toLowerCase()] as Json | undefined;
        const reply = ((op?.responses as Json | undefined)?.[String(status)] as Json | undefined)?.content as Json | undefined;
        const schema = (reply?.['application/json'] as Json | undefined)?.schema;
        if (!schema) return [`the document has no JSON reply for ${key}`];
        validate = ajv.compile({ ...(schema as Json), components });
        compiled.set(key, validate);
      }
      if (validate(body)) return [];
      return (validate.errors ?? []).map(describe);
    },
  };
}

function describe(e: ErrorObject): string {
  const at = e.instancePath || '/';
  if (e.keyword === 'unevaluatedProperties') return `${at}: undeclared field ${JSON.stringify(e.params.unevaluatedProperty)}`;
  return `${at}: ${e.message} (${e.schemaPath})`;
}
