// A valibot record that keeps every own key of the caller's JSON, `__proto__`, `constructor` and `prototype` included.
import * as v from 'valibot';

/**
 * Stores `value` under `key` as an ordinary own property. Plain assignment of `__proto__` would set the
 * object's prototype instead (and drop the value from JSON); defineProperty never does. `constructor`
 * and `prototype` assign normally (Object.prototype.constructor is a writable data property).
 */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

type Dataset = { value: unknown; typed?: boolean; issues?: v.BaseIssue<unknown>[] };
/** Issue paths are built by the schema that owns the key, as valibot's own schemas do. */
type Issue = { path?: unknown[] };
type Runner = (dataset: Dataset, config: v.Config<v.BaseIssue<unknown>>) => Dataset;

/** The path item valibot's record gives an issue of one entry (built only when there is an issue). */
function pathItem(origin: 'key' | 'value', input: Record<string, unknown>, key: string): v.ObjectPathItem {
  return { type: 'object', origin, input, key, value: input[key] };
}

/**
 * `v.record(key, value)` with one difference: valibot's record skips the keys `__proto__`, `prototype`
 * and `constructor` (its guard against prototype pollution), so a column or question of that name
 * vanished without an error. docs/reference/ask.md#data says a row is "property name string, any value": every own key
 * of the parsed JSON is checked and kept here, stored with setOwn so nothing reaches a prototype.
 * Type, key and value stay those of v.record, so JSON Schema generation is unchanged.
 */
export function ownRecord<
  const TKey extends v.BaseSchema<string, string, v.BaseIssue<unknown>>,
  const TValue extends v.BaseSchema<unknown, unknown, v.BaseIssue<unknown>>,
>(key: TKey, value: TValue) {
  const base = v.record(key, value);
  // valibot's ~run methods read their schema through `this`, so they are always called on it.
  const runKey: Runner = (d, c) => (key as unknown as { '~run': Runner })['~run'](d, c);
  const runValue: Runner = (d, c) => (value as unknown as { '~run': Runner })['~run'](d, c);
  const run: Runner = (dataset, config) => {
    const input = dataset.value;
    // Not an object: valibot's own record reports the type issue exactly as before.
    if (!input || typeof input !== 'object') return (base as unknown as { '~run': Runner })['~run'](dataset, config);
    // valibot's record takes an array as an object (keys "0", "1", ...): a map sent as an array is a
    // mistake to name, not a question called "0".
    if (Array.isArray(input)) {
      const issue = {
        kind: 'schema',
        type: 'record',
        input,
        expected: 'Object',
        received: 'Array',
        message: 'Invalid type: Expected Object but received Array',
      } as unknown as v.BaseIssue<unknown>;
      dataset.typed = false;
      (dataset.issues ??= []).push(issue);
      return dataset;
    }
    const entries = input as Record<string, unknown>;
    const output: Record<string, unknown> = {};
    dataset.typed = true;
    dataset.value = output;
    for (const entryKey of Object.keys(entries)) {
      const entryValue = entries[entryKey];
      const keyDataset = runKey({ value: entryKey }, config);
      if (keyDataset.issues) {
        for (const issue of keyDataset.issues) (issue as Issue).path = [pathItem('key', entries, entryKey)];
        (dataset.issues ??= []).push(...keyDataset.issues);
        if (config.abortEarly) {
          dataset.typed = false;
          break;
        }
      }
      const valueDataset = runValue({ value: entryValue }, config);
      if (valueDataset.issues) {
        for (const issue of valueDataset.issues) (issue as Issue).path = [pathItem('value', entries, entryKey), ...(issue.path ?? [])];
        (dataset.issues ??= []).push(...valueDataset.issues);
        if (config.abortEarly) {
          dataset.typed = false;
          break;
        }
      }
      if (!keyDataset.typed || !valueDataset.typed) dataset.typed = false;
      if (keyDataset.typed) setOwn(output, keyDataset.value as string, valueDataset.value);
    }
    return dataset;
  };
  const schema = { ...base, '~run': run } as unknown as typeof base;
  // Standard Schema consumers validate through ~standard, which must call this run, not the copied one.
  return Object.assign(schema, {
    '~standard': { ...base['~standard'], validate: (input: unknown) => run({ value: input }, v.getGlobalConfig()) },
  }) as typeof base;
}
