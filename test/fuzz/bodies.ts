// Request bodies as a fuzzer sends them (fast-check arbitraries): arbitrary JSON (non-finite numbers
// included), an operation's own examples with a part replaced, removed or added, deep nesting, garbage text.
// Shared by the fuzz suites of test/fuzz/.
import fc from 'fast-check';
import type { Operation } from '../../host/operations/operation.ts';

/** Field names the schemas read, so arbitrary objects often reach past the first check. */
export const KNOWN_KEYS = [
  'data',
  'rows',
  'csv',
  'dataset_id',
  'fetch_url',
  'fetch_headers',
  'entity_column',
  'time_column',
  'subject_kind',
  'questions',
  'q',
  'type',
  'outcome_column',
  'positive_values',
  'cases',
  'ids',
  'shape',
  'kind',
  'task_id',
  'model_ref',
  'outcomes',
  'entity_id',
  'outcome',
  'observed_at',
  'event_id',
  'upload',
  'filename',
  'verdict',
  'signature',
  'levels',
  'cuts',
  'top_k',
  'options',
  'option_column',
  'idempotency_key',
  'band',
  'refit_of',
  '__proto__',
  'constructor',
] as const;

/** A JSON value; numbers may be non-finite (written as 1e400 / -1e400, which JSON.parse reads as infinities). */
export const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    fc.constantFrom(Infinity, -Infinity, 1e308, -0, 2 ** 53 + 1),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constantFrom(
      '',
      'sample:saas_churn',
      'ds_' + 'a'.repeat(26),
      'tk_' + 'a'.repeat(24),
      'mr1_' + '0'.repeat(32),
      'yes',
      'https://127.0.0.1/x.csv',
    ),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...KNOWN_KEYS), fc.string({ maxLength: 12 })), tie('value'), { maxKeys: 6 }),
  ),
})).value;

/** JSON text of a value, with infinities written as numbers too large for a double. */
export function toText(v: unknown): string {
  if (typeof v === 'number') {
    if (v === Infinity) return '1e400';
    if (v === -Infinity) return '-1e400';
    if (Number.isNaN(v)) return '1e999';
  }
  if (Array.isArray(v)) return `[${v.map(toText).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${JSON.stringify(k)}:${toText(x)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

type Path = Array<string | number>;
function pathsOf(v: unknown, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (Array.isArray(v)) v.slice(0, 6).forEach((x, i) => pathsOf(x, [...at, i], out));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) pathsOf(x, [...at, k], out);
  return out;
}

/** `example` with the value at `path` replaced (`with` given), removed, or given an extra key. */
function mutate(example: unknown, path: Path, change: 'replace' | 'remove' | 'add', value: unknown, key: string): unknown {
  const copy = structuredClone(example);
  if (path.length === 0) return change === 'replace' ? value : copy;
  let parent: any = copy;
  for (const p of path.slice(0, -1)) parent = parent[p];
  const last = path[path.length - 1];
  if (change === 'replace') parent[last] = value;
  else if (change === 'remove') Array.isArray(parent) ? parent.splice(Number(last), 1) : delete parent[last];
  else if (parent[last] !== null && typeof parent[last] === 'object' && !Array.isArray(parent[last])) parent[last][key] = value;
  else parent[last] = value;
  return copy;
}

/** Arrays nested `n` deep around `inner`, placed at a random path of an example. */
const deepText = (n: number) => `${'['.repeat(n)}1${']'.repeat(n)}`;

/** A request body as text for `op`: a changed example, arbitrary JSON, deep nesting, or not JSON at all. */
export function bodyText(op: Operation): fc.Arbitrary<string> {
  const examples = op.examples.map((e) => e.value);
  const options: Array<fc.Arbitrary<string>> = [
    jsonValue.map(toText),
    fc.integer({ min: 60, max: 3000 }).map((n) => `{"data":{"rows":[{"x":${deepText(n)}}]},"task_id":${deepText(n)}}`),
    fc.string({ maxLength: 60 }),
    fc.constantFrom('', '{', '[]', 'null', '{"a":1e400}', '{"a":-1e999}', '\u0000', '{"__proto__":{"x":1}}'),
  ];
  if (examples.length > 0) {
    const changed = fc
      .constantFrom(...examples)
      .chain((ex) =>
        fc.tuple(
          fc.constant(ex),
          fc.constantFrom(...pathsOf(ex)),
          fc.constantFrom('replace', 'remove', 'add') as fc.Arbitrary<'replace' | 'remove' | 'add'>,
          jsonValue,
          fc.oneof(fc.constantFrom(...KNOWN_KEYS), fc.string({ maxLength: 8 })),
        ),
      )
      .map(([ex, path, change, value, key]) => toText(mutate(ex, path, change, value, key)));
    options.push(changed, changed, changed, fc.constantFrom(...examples).map(toText));
  }
  return fc.oneof(...options);
}
