// host/schemas/json-guard.ts: the one rule for a request body: every number finite, nesting at
// most 64 levels; the first offence in document order is named by its path, without recursion.
import { describe, expect, it } from 'vitest';
import { JSON_DEPTH_MAX, assertPlainJson, findJsonHazard, hazardField } from '../../host/schemas/json-guard.ts';
import { ServiceError } from '../../host/errors.ts';

/** `levels` arrays nested one inside the next around `inner` (the outermost is level 1). */
const nest = (levels: number, inner: unknown = 1): unknown => {
  let v = inner;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
};

describe('findJsonHazard', () => {
  it('passes plain bodies: finite numbers, strings, booleans, null, nesting up to the limit', () => {
    expect(findJsonHazard({ a: 1, b: [1.5e308, -0, 'x', true, null], c: { d: {} } })).toBeNull();
    expect(findJsonHazard(nest(JSON_DEPTH_MAX))).toBeNull();
    expect(findJsonHazard('text')).toBeNull();
  });

  it('names a non-finite number (1e400 reads as Infinity) by its path, the first in document order', () => {
    const body = JSON.parse('{"data":{"rows":[{"x":1},{"x":2,"y":1e400,"z":-1e400}]},"w":1e999}');
    expect(findJsonHazard(body)).toEqual({ kind: 'non_finite', path: ['data', 'rows', 1, 'y'] });
    expect(findJsonHazard(JSON.parse('[1, -1e400]'))).toEqual({ kind: 'non_finite', path: [1] });
    expect(findJsonHazard(NaN)).toEqual({ kind: 'non_finite', path: [] });
  });

  it('names the first container past the depth limit; 100,000 levels are walked without recursion', () => {
    expect(findJsonHazard(nest(JSON_DEPTH_MAX + 1))).toEqual({ kind: 'depth', path: Array(JSON_DEPTH_MAX).fill(0) });
    const deep = JSON.parse(`{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    const h = findJsonHazard(deep)!;
    expect(h.kind).toBe('depth');
    expect(h.path).toEqual(['a', ...Array(JSON_DEPTH_MAX - 1).fill(0)]);
  });

  it('reports what comes first in the document, whichever kind', () => {
    expect(findJsonHazard({ a: nest(70), b: Infinity })?.kind).toBe('depth');
    expect(findJsonHazard({ b: Infinity, a: nest(70) })?.kind).toBe('non_finite');
  });
});

describe('the 422 it makes', () => {
  it('is invalid_request naming the field, with a remedy that says what to send', () => {
    const err = (() => {
      try {
        assertPlainJson(JSON.parse('{"data":{"rows":[{"x":1e400}]}}'));
      } catch (e) {
        return e as ServiceError;
      }
    })()!;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.status).toBe(422);
    expect(err.code).toBe('invalid_request');
    expect(err.field).toBe('data.rows.0.x');
    expect(err.message).toMatch(/^data\.rows\.0\.x: /);
    expect(err.remedy).toMatch(/finite/);
  });

  it('cuts a field longer than 512 characters', () => {
    const f = hazardField(Array(200).fill('abcdef'))!;
    expect(f.length).toBe(515);
    expect(f.endsWith('...')).toBe(true);
  });
});
