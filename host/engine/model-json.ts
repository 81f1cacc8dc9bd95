// A Model as JSON for the export endpoint and the page: the header as it is, the engine's f64 array as
// base64 of its little-endian bytes (the array holds NaN, which a JSON number list cannot carry).
import { Model, type ModelHeader } from './model.ts';

export interface ModelJson {
  header: ModelHeader;
  /** Base64 (RFC 4648, padded) of the f64 array, 8 little-endian bytes per number. */
  array_base64: string;
}

export function modelToJson(model: Model): ModelJson {
  return { header: model.header, array_base64: f64ToBase64(model.array) };
}

export function modelFromJson(json: ModelJson): Model {
  return new Model(json.header, f64FromBase64(json.array_base64, 'model array_base64'));
}

/** Base64 of the f64 values as 8 little-endian bytes each, whatever the platform's byte order. */
export function f64ToBase64(array: Float64Array): string {
  const bytes = new Uint8Array(array.length * 8);
  const view = new DataView(bytes.buffer);
  array.forEach((x, i) => view.setFloat64(i * 8, x, true));
  return bytesToBase64(bytes);
}

export function f64FromBase64(b64: string, what = 'f64 base64'): Float64Array {
  const bytes = base64ToBytes(b64);
  if (bytes.length % 8 !== 0) throw new Error(`${what} is not a whole number of f64 values`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const array = new Float64Array(bytes.length / 8);
  for (let i = 0; i < array.length; i++) array[i] = view.getFloat64(i * 8, true);
  return array;
}

// btoa/atob exist in browsers and in Node >= 16; they take "binary strings", built here in chunks.
const CHUNK = 0x8000;

export function bytesToBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += CHUNK) s += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(s);
}

export function base64ToBytes(b64: string): Uint8Array {
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
