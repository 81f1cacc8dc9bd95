// Maps keyed by caller names (questions, options, columns) must keep every name as an own property:
// a plain `obj[name] = v` with name "__proto__" sets the object's prototype and the entry is lost.

/** obj[key] = value as an own enumerable data property, whatever the key. */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}
