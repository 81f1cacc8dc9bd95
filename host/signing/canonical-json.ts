// Canonical JSON for signed Verdicts (wire.md "Verdicts and signatures"): the exact bytes a signature covers.

/** Serialises `value` canonically; throws TypeError on anything a Verdict must not hold. */
export function canonicalJson(value: unknown): string {
  const seen = new Set<object>();
  const write = (v: unknown): string => {
    if (v === null) return 'null';
    switch (typeof v) {
      case 'boolean':
        return v ? 'true' : 'false';
      case 'number':
        return formatNumber(v);
      case 'string':
        return quote(v);
      case 'object':
        break;
      default:
        throw new TypeError(`canonicalJson: cannot serialise a ${typeof v}`);
    }
    const obj = v as object;
    if (seen.has(obj)) throw new TypeError('canonicalJson: cyclic structure');
    seen.add(obj);
    let out: string;
    if (Array.isArray(obj)) {
      out = '[' + obj.map((item) => write(item)).join(',') + ']';
    } else {
      const proto = Object.getPrototypeOf(obj);
      if (proto !== Object.prototype && proto !== null) {
        throw new TypeError('canonicalJson: only plain objects and arrays are allowed');
      }
      const rec = obj as Record<string, unknown>;
      // Undefined properties are omitted, as JSON.stringify does.
      const keys = Object.keys(rec).filter((k) => rec[k] !== undefined).sort(compareCodePoints);
      out = '{' + keys.map((k) => quote(k) + ':' + write(rec[k])).join(',') + '}';
    }
    seen.delete(obj);
    return out;
  };
  return write(value);
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
  '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t',
};

// Everything outside printable ASCII (0x20-0x7e), plus the quote and backslash, one UTF-16 code unit at a time.
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\u007f-\uffff]/g;

/** JSON string with every code unit outside printable ASCII as \uXXXX (lowercase), like Python's ensure_ascii. */
function quote(s: string): string {
  const escape = (ch: string) => SHORT_ESCAPES[ch] ?? '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0');
  return '"' + s.replace(NEEDS_ESCAPE, escape) + '"';
}

/** Integers below 1e16 as plain digits; others as Python's repr(float) writes the shortest round-trip form. */
function formatNumber(x: number): string {
  if (!Number.isFinite(x)) throw new TypeError('canonicalJson: NaN and infinities are not allowed');
  if (x === 0) return '0'; // also -0
  const sign = x < 0 ? '-' : '';
  const abs = Math.abs(x);
  if (Number.isInteger(abs) && abs < 1e16) return sign + abs.toFixed(0);
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
