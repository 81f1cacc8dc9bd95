// Canonical JSON for signed Verdicts (docs/reference/verdicts.md): the exact bytes a signature covers.

/** Serialises `value` canonically; throws TypeError on anything a Verdict must not hold. */
export function canonicalJson(value: unknown): string {
  // Fastest path: the document is already canonical in shape (every object's keys in order, every
  // number one JSON.stringify writes as Python would), so JSON.stringify writes the canonical text,
  // provided the text holds nothing past printable ASCII: JSON.stringify escapes control characters
  // and lone surrogates exactly as the general path does, and writes everything else raw, so one
  // scan of the output stands in for checking every string and key.
  if (hasCanonicalShape(value, 0)) {
    const text = JSON.stringify(value);
    if (!NON_PRINTABLE_HIGH.test(text)) return text;
  }
  // Fast path: a copy with sorted keys, handed to JSON.stringify, when every number and string is
  // one whose JSON.stringify text is already the canonical text (checked while copying).
  const sorted = sortedCopy(value, new Set<object>());
  if (sorted !== UNSAFE) return JSON.stringify(sorted);
  return canonicalJsonReference(value);
}

/**
 * canonicalJson of a plain object, written one top-level value at a time so the caller can keep the
 * canonical text of each value (`onValue`): a reply can then reuse a big part as it was signed.
 * Values are written with canonicalSharedListJson: a Verdict's cases repeat a few hundred interned
 * reasons tens of thousands of times, and writing each reason's text once takes about half the time
 * canonicalJson takes over the whole array (see docs/benchmark-results.md#ship-a-product-model_ref-scoring-exports); canonicalJsonShared,
 * which keeps texts across calls in a WeakMap, and a JavaScript writer memoising every object were
 * both slower than canonicalJson on 10,000 cases.
 */
export function canonicalObjectJson(obj: Record<string, unknown>, onValue?: (value: unknown, text: string) => void): string {
  return canonicalObjectPieces(obj, onValue).join('');
}

/**
 * canonicalObjectJson in pieces whose concatenation is its text (readable form:
 * canonicalObjectPieces(obj).join('') === canonicalObjectJson(obj)): each top-level value's text is a
 * piece of its own, so a Verdict of 10,000 cases is signed and sent from the 6 MB text of its cases as
 * written, without copying it into one string of the whole Verdict first (and flattening that again).
 */
export function canonicalObjectPieces(obj: Record<string, unknown>, onValue?: (value: unknown, text: string) => void): string[] {
  const proto = obj === null || typeof obj !== 'object' || Array.isArray(obj) ? undefined : Object.getPrototypeOf(obj);
  if (proto !== Object.prototype && proto !== null) throw new TypeError('canonicalObjectJson: only a plain object');
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined);
  keys.sort(compareCodePoints);
  const pieces: string[] = [];
  let head = '{';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const text = canonicalSharedListJson(obj[k]);
    onValue?.(obj[k], text);
    pieces.push(`${head}${i > 0 ? ',' : ''}${quote(k)}:`, text);
    head = '';
  }
  pieces.push(`${head}}`);
  return pieces;
}

// Canonical text of deeply frozen objects and arrays (nothing in them can change), written once.
const frozenTexts = new WeakMap<object, string>();

/**
 * canonicalJson for documents that repeat shared frozen parts (the reasons and ranges of a Verdict's
 * cases): the text of each deeply frozen object or array is written once and reused wherever the
 * same object appears. Same output as canonicalJson.
 */
export function canonicalJsonShared(value: unknown): string {
  return writeShared(value, new Set<object>()).text;
}

function primitiveText(v: unknown): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      return formatNumber(v);
    case 'string':
      return quote(v);
    default:
      throw new TypeError(`canonicalJson: cannot serialise a ${typeof v}`);
  }
}

function writeShared(v: unknown, seen: Set<object>): { text: string; frozen: boolean } {
  if (v === null || typeof v !== 'object') return { text: primitiveText(v), frozen: true };
  const known = frozenTexts.get(v);
  if (known !== undefined) return { text: known, frozen: true };
  if (seen.has(v)) throw new TypeError('canonicalJson: cyclic structure');
  seen.add(v);
  let text: string;
  let frozen = Object.isFrozen(v);
  if (Array.isArray(v)) {
    const parts = new Array<string>(v.length);
    for (let i = 0; i < v.length; i++) {
      const w = writeShared(v[i], seen);
      parts[i] = w.text;
      frozen &&= w.frozen;
    }
    text = `[${parts.join(',')}]`;
  } else {
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) throw new TypeError('canonicalJson: only plain objects and arrays are allowed');
    const rec = v as Record<string, unknown>;
    const shape = shapeOf(Object.keys(rec));
    const parts: string[] = [];
    for (let i = 0; i < shape.keys.length; i++) {
      const item = rec[shape.keys[i]];
      if (item === undefined) continue;
      const w = writeShared(item, seen);
      parts.push(shape.prefixes[i] + w.text);
      frozen &&= w.frozen;
    }
    text = `{${parts.join(',')}}`;
  }
  seen.delete(v);
  if (frozen) frozenTexts.set(v, text);
  return { text, frozen };
}

/**
 * canonicalJson of a list of objects that each hold a list of shared parts under `key` (a Verdict's
 * cases: 10,000 of them hold 24,661 reasons, 464 distinct objects). Each part's text is written once,
 * and the rest by canonicalJson (mostly JSON.stringify) with each item's parts swapped for a marker
 * string, which is then replaced by the parts' texts. A marker carries a random nonce made after the
 * document, so no value in it can spell one. Anything else (not a list of plain objects each with a
 * list under `key`) is written by canonicalJson. Same output as canonicalJson.
 */
export function canonicalSharedListJson(list: unknown, key = 'reasons'): string {
  if (!Array.isArray(list) || list.length === 0) return canonicalJson(list);
  const skeleton = new Array<Record<string, unknown>>(list.length);
  for (let i = 0; i < list.length; i++) {
    const item: unknown = list[i];
    if (typeof item !== 'object' || item === null || Object.getPrototypeOf(item) !== Object.prototype) return canonicalJson(list);
    if (!Array.isArray((item as Record<string, unknown>)[key])) return canonicalJson(list);
    skeleton[i] = { ...item };
  }
  // one marker for every item: canonicalJson writes the items in order, each holding its marker once
  const marker = `oq-shared:${crypto.randomUUID()}`;
  // plain assignment replaces the copy's own value (defineProperty, needed only for __proto__, costs more)
  if (key === '__proto__') for (let i = 0; i < skeleton.length; i++) setOwnValue(skeleton[i], key, marker);
  else for (let i = 0; i < skeleton.length; i++) skeleton[i][key] = marker;
  const pieces = canonicalJson(skeleton).split(`"${marker}"`);
  if (pieces.length !== list.length + 1) throw new Error('canonicalSharedListJson: a marker went missing');
  const memo = new Map<unknown, string>();
  const parts: string[] = [pieces[0]];
  for (let i = 0; i < list.length; i++) {
    parts.push('[');
    const shared = (list[i] as Record<string, unknown[]>)[key];
    for (let j = 0; j < shared.length; j++) {
      const part = shared[j];
      let partText = memo.get(part);
      if (partText === undefined) {
        partText = canonicalJson(part);
        if (typeof part === 'object' && part !== null) memo.set(part, partText);
      }
      if (j > 0) parts.push(',');
      parts.push(partText);
    }
    parts.push(']', pieces[i + 1]);
  }
  return parts.join('');
}

function setOwnValue(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The general path (and the readable reference the fast path is tested against). */
export function canonicalJsonReference(value: unknown): string {
  const out: string[] = [];
  writeValue(value, out, new Set<object>());
  return out.join('');
}

const UNSAFE = Symbol('unsafe');
const MAX_DEPTH = 64; // deeper documents take the general path (which also detects cycles)

/**
 * True when JSON.stringify(v) writes every object's keys in canonical order and every number as
 * the canonical text does; strings and keys are left to the caller's scan of the output. Keys in
 * strictly increasing UTF-16 order are canonical unless a key holds an astral character, which the
 * output scan catches; integer-like keys need no special care because JSON.stringify writes keys
 * in the very order this loop checks.
 */
function hasCanonicalShape(v: unknown, depth: number): boolean {
  switch (typeof v) {
    case 'number': {
      const a = Math.abs(v);
      return v === 0 || (a >= 1e-4 && a < 1e16);
    }
    case 'string':
    case 'boolean':
      return true;
    case 'object':
      break;
    default:
      return false;
  }
  if (v === null) return true;
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!hasCanonicalShape(v[i], depth + 1)) return false;
    return true;
  }
  if (Object.getPrototypeOf(v) !== Object.prototype) return false;
  const rec = v as Record<string, unknown>;
  let prev = '';
  let first = true;
  for (const k in rec) {
    if (!first && !(prev < k)) return false;
    const item = rec[k];
    if (item === undefined || !hasCanonicalShape(item, depth + 1)) return false;
    prev = k;
    first = false;
  }
  return true;
}
const NON_PRINTABLE_HIGH = /[\u007f-\uffff]/;

/**
 * A copy of `v` whose objects have their keys in canonical order, or UNSAFE when some number or
 * string would be written differently by JSON.stringify (non-ASCII or DEL characters; numbers
 * outside [1e-4, 1e16) other than 0). Throws like the general path on values a Verdict must not hold.
 */
function sortedCopy(v: unknown, seen: Set<object>): unknown {
  switch (typeof v) {
    case 'number': {
      if (!Number.isFinite(v)) throw new TypeError('canonicalJson: NaN and infinities are not allowed');
      const a = Math.abs(v);
      return v === 0 || (a >= 1e-4 && a < 1e16) ? v : UNSAFE;
    }
    case 'string':
      return NON_PRINTABLE_HIGH.test(v) ? UNSAFE : v;
    case 'boolean':
      return v;
    case 'object':
      break;
    default:
      throw new TypeError(`canonicalJson: cannot serialise a ${typeof v}`);
  }
  if (v === null) return null;
  const obj = v as object;
  if (seen.has(obj)) throw new TypeError('canonicalJson: cyclic structure');
  seen.add(obj);
  let copy: unknown;
  if (Array.isArray(obj)) {
    const arr = new Array(obj.length);
    for (let i = 0; i < obj.length; i++) {
      const c = sortedCopy(obj[i], seen);
      if (c === UNSAFE) return UNSAFE;
      arr[i] = c;
    }
    copy = arr;
  } else {
    const proto = Object.getPrototypeOf(obj);
    if (proto !== Object.prototype && proto !== null) {
      throw new TypeError('canonicalJson: only plain objects and arrays are allowed');
    }
    const rec = obj as Record<string, unknown>;
    const shape = shapeOf(Object.keys(rec));
    if (shape.unsafe) return UNSAFE;
    const out: Record<string, unknown> = {};
    for (const k of shape.keys) {
      const item = rec[k];
      if (item === undefined) continue;
      const c = sortedCopy(item, seen);
      if (c === UNSAFE) return UNSAFE;
      // an own property even for the key __proto__ (a plain assignment would set the prototype)
      Object.defineProperty(out, k, { value: c, enumerable: true, writable: true, configurable: true });
    }
    copy = out;
  }
  seen.delete(obj);
  return copy;
}

interface Shape {
  keys: string[]; // sorted by code point
  prefixes: string[]; // '"key":' for each, as the general path writes them
  unsafe: boolean; // a key JSON.stringify would write differently, or one that looks like an array index
}
// Objects of one shape (every case of a Verdict) share one sorted key list.
const shapes = new Map<string, Shape>();
const MAX_SHAPES = 4096;
const INDEX_LIKE = /^(?:0|[1-9][0-9]*)$/;

function shapeOf(keys: string[]): Shape {
  const sig = keys.join('\u0000');
  let shape = shapes.get(sig);
  if (!shape) {
    const sorted = [...keys];
    sorted.sort(SURROGATE.test(sig) ? compareCodePoints : compareUnits);
    // Integer-like keys are enumerated first by JavaScript whatever the insertion order.
    const unsafe = NON_PRINTABLE_HIGH.test(sig) || keys.some((k) => INDEX_LIKE.test(k));
    shape = { keys: sorted, prefixes: sorted.map((k) => quote(k) + ':'), unsafe };
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(sig, shape);
  }
  return shape;
}

function writeValue(v: unknown, out: string[], seen: Set<object>): void {
  if (v === null) return void out.push('null');
  switch (typeof v) {
    case 'boolean':
      return void out.push(v ? 'true' : 'false');
    case 'number':
      return void out.push(formatNumber(v));
    case 'string':
      return void out.push(quote(v));
    case 'object':
      break;
    default:
      throw new TypeError(`canonicalJson: cannot serialise a ${typeof v}`);
  }
  const obj = v as object;
  if (seen.has(obj)) throw new TypeError('canonicalJson: cyclic structure');
  seen.add(obj);
  if (Array.isArray(obj)) {
    out.push('[');
    for (let i = 0; i < obj.length; i++) {
      if (i > 0) out.push(',');
      writeValue(obj[i], out, seen);
    }
    out.push(']');
  } else {
    const proto = Object.getPrototypeOf(obj);
    if (proto !== Object.prototype && proto !== null) {
      throw new TypeError('canonicalJson: only plain objects and arrays are allowed');
    }
    const rec = obj as Record<string, unknown>;
    const shape = shapeOf(Object.keys(rec));
    out.push('{');
    let first = true;
    for (let i = 0; i < shape.keys.length; i++) {
      const item = rec[shape.keys[i]];
      if (item === undefined) continue; // omitted, as JSON.stringify does
      if (!first) out.push(',');
      first = false;
      out.push(shape.prefixes[i]);
      writeValue(item, out, seen);
    }
    out.push('}');
  }
  seen.delete(obj);
}

/** Orders strings by Unicode code point (as Python does), not by UTF-16 code unit. */
export function compareCodePoints(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(j)!;
    if (ca !== cb) return ca < cb ? -1 : 1;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  return a.length - i === b.length - j ? 0 : a.length - i < b.length - j ? -1 : 1;
}

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

// Everything outside printable ASCII (0x20-0x7e), plus the quote and backslash, one UTF-16 code unit at a time.
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\u007f-\uffff]/g;
// UTF-16 order equals code-point order unless a key holds a surrogate (astral character).
const NEEDS_ESCAPE_ONCE = /[\u0000-\u001f"\\\u007f-\uffff]/;
const SURROGATE = /[\ud800-\udfff]/;

function compareUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function escapeUnit(ch: string): string {
  return SHORT_ESCAPES[ch] ?? '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0');
}

/** JSON string with every code unit outside printable ASCII as \uXXXX (lowercase), like Python's ensure_ascii. */
function quote(s: string): string {
  if (!NEEDS_ESCAPE_ONCE.test(s)) return '"' + s + '"'; // the common case: nothing to escape
  return '"' + s.replace(NEEDS_ESCAPE, escapeUnit) + '"';
}

/** Integers below 1e16 as plain digits; others as Python's repr(float) writes the shortest round-trip form. */
function formatNumber(x: number): string {
  if (!Number.isFinite(x)) throw new TypeError('canonicalJson: NaN and infinities are not allowed');
  if (x === 0) return '0'; // also -0
  const sign = x < 0 ? '-' : '';
  const abs = Math.abs(x);
  if (Number.isInteger(abs) && abs < 1e16) return sign + abs.toFixed(0);
  // In [1e-4, 1e16) JavaScript's shortest round-trip text is already plain notation, as Python's is.
  if (abs >= 1e-4 && abs < 1e16) return sign + String(abs);
  // toExponential() without an argument gives the shortest round-trip digits: "d.ddde+n".
  const [mantissa, expText] = abs.toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exp = Number(expText);
  if (exp < -4 || exp >= 16) {
    const expAbs = String(Math.abs(exp)).padStart(2, '0');
    return sign + mantissa + 'e' + (exp < 0 ? '-' : '+') + expAbs;
  }
  if (exp < 0) return sign + '0.' + '0'.repeat(-exp - 1) + digits;
  // 0 <= exp < 16 and not an integer, so the digits run past the decimal point.
  return sign + digits.slice(0, exp + 1) + '.' + digits.slice(exp + 1);
}
