// The JSON text a request body was parsed from, kept beside the parsed value (a WeakMap: it goes with the
// value). A call that becomes a task stores its body as that text (runtime/tasks.ts), so the request thread
// does not write the parsed body back into JSON, and the task thread parses the caller's own bytes.

const texts = new WeakMap<object, string>();

/** Remembers that `value` was parsed from `text` (JSON.parse(text) gives it); the value must not be changed afterwards. */
export function keepRawJson(value: unknown, text: string): void {
  if (value !== null && typeof value === 'object') texts.set(value, text);
}

/** The text `value` was parsed from, when it came from a request body; undefined otherwise. */
export function rawJsonOf(value: unknown): string | undefined {
  return value !== null && typeof value === 'object' ? texts.get(value) : undefined;
}
