// Every schema converts to JSON Schema draft 2020-12 (for OpenAPI and MCP); skipped if the converter is absent.
import { describe, expect, it } from 'vitest';
import type * as v from 'valibot';
import fs from 'node:fs';
import path from 'node:path';
import * as schemas from '../../host/schemas/index.ts';
import { OPERATIONS } from '../../host/operations/index.ts';

// Imported by name at run time so type checking does not depend on the package being installed.
const converterName = '@valibot/to-json-schema';
type Convert = (schema: v.GenericSchema, config: Record<string, unknown>) => Record<string, unknown>;
const toJsonSchema: Convert | undefined = await import(converterName).then(
  (mod: { toJsonSchema: Convert }) => mod.toJsonSchema,
  () => undefined,
);

/** Custom rules have no JSON Schema form; they are documented in prose and enforced by parseBody. */
const CUSTOM_ACTIONS = ['check', 'raw_check', 'partial_check'];

/** The shared schemas (host/schemas) and every operation's own (host/operations/<resource>/<operation>.schema.ts). */
const OPERATIONS_DIR = path.resolve(import.meta.dirname, '../../host/operations');
const schemaFiles = fs
  .readdirSync(OPERATIONS_DIR, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.schema.ts'))
  .sort();
const modules: Record<string, unknown>[] = [schemas, ...(await Promise.all(schemaFiles.map((f) => import(path.join(OPERATIONS_DIR, f)))))];

const all: [string, v.GenericSchema][] = [...new Map(modules.flatMap((m) => Object.entries(m))).entries()]
  .filter(([name, value]) => name.endsWith('Schema') && typeof value === 'object' && value !== null && 'kind' in value)
  .map(([name, value]) => [name, value as v.GenericSchema]);

/** The least permissive config that converts the schema, or 'fails'. */
function convert(schema: v.GenericSchema): [string, Record<string, unknown> | undefined] {
  const attempts: [string, Record<string, unknown>][] = [
    ['plain', { target: 'draft-2020-12' }],
    ['ignoreActions', { target: 'draft-2020-12', ignoreActions: CUSTOM_ACTIONS }],
    ['errorMode ignore', { target: 'draft-2020-12', errorMode: 'ignore' }],
  ];
  for (const [level, config] of attempts) {
    try {
      return [level, toJsonSchema!(schema, config)];
    } catch {
      // try the next, more permissive config
    }
  }
  return ['fails', undefined];
}

describe.skipIf(toJsonSchema === undefined)('JSON Schema conversion', () => {
  const levels: Record<string, string> = {};

  it.each(all)('%s converts', (name, schema) => {
    const [level, json] = convert(schema);
    levels[name] = level;
    expect(level).not.toBe('fails');
    expect(typeof json).toBe('object');
    expect(() => JSON.stringify(json)).not.toThrow();
  });

  it('reports which schemas needed a permissive config', () => {
    const needing = Object.entries(levels).filter(([, level]) => level !== 'plain');
    console.info('JSON Schema conversion needs:', Object.fromEntries(needing));
    expect(Object.keys(levels).length).toBe(all.length);
  });
});

describe('schema inventory', () => {
  it('finds every request and response schema', () => {
    const names = all.map(([name]) => name);
    for (const op of OPERATIONS) {
      if (op.request)
        expect(
          all.some(([, s]) => s === op.request),
          `${op.name} request`,
        ).toBe(true);
      if (op.response)
        expect(
          all.some(([, s]) => s === op.response),
          `${op.name} response`,
        ).toBe(true);
    }
    expect(names).toContain('WhenSchema');
  });
});
