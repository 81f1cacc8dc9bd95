// components.schemas of the OpenAPI document: each operation's request and reply and the Problem, converted
// once from the valibot schemas; a schema shared by two operations (ask and poll replies) is one component.
import type * as v from 'valibot';
import { ProblemSchema } from '../schemas/index.ts';
import type { Operation } from '../operations/operation.ts';
import { hoistDefs, jsonSchemaOf, type Json } from './json-schema.ts';

export const COMPONENT_BASE = '#/components/schemas/';

/** svc_add_dataset -> AddDataset, register_agent -> RegisterAgent. */
export function pascalOf(name: string): string {
  return name
    .replace(/^svc_/, '')
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

export class SchemaComponents {
  readonly schemas: Record<string, Json> = {};
  private readonly names = new Map<v.GenericSchema, string>();

  /** Adds `schema` as `name` (or finds it under the name it already has) and returns its $ref. */
  ref(schema: v.GenericSchema, name: string, description?: string): Json {
    let known = this.names.get(schema);
    if (known === undefined) {
      const { schema: body, defs } = hoistDefs(jsonSchemaOf(schema), name, COMPONENT_BASE);
      this.schemas[name] = description ? { ...body, description } : body;
      Object.assign(this.schemas, defs);
      this.names.set(schema, name);
      known = name;
    }
    return { $ref: `${COMPONENT_BASE}${known}` };
  }
}

/** The components for these operations, plus Problem (docs/reference/errors.md#problem). */
export function schemaComponentsOf(ops: readonly Operation[]): SchemaComponents {
  const components = new SchemaComponents();
  components.ref(
    ProblemSchema,
    'Problem',
    'RFC 9457 problem details (docs/reference/errors.md#problem, docs/reference/errors.md); read `code` and `remedy`, `field` names the argument at fault.',
  );
  for (const op of ops) {
    const base = pascalOf(op.name);
    if (op.request) components.ref(op.request, `${base}Request`, op.rules);
    if (op.response) components.ref(op.response, `${base}Response`);
  }
  return components;
}
