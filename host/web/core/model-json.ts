// A Model as JSON for the export endpoint and the page: the header as it is, the engine's f64 array as
// base64 of its little-endian bytes (the array holds NaN, which a JSON number list cannot carry).
import { Model, type ModelHeader } from '../../engine/model.ts';

export interface ModelJson {
  header: ModelHeader;
  /** Base64 (RFC 4648, padded) of the f64 array, 8 little-endian bytes per number. */
  array_base64: string;
}

export function modelToJson(model: Model): ModelJson {
  const bytes = new Uint8Array(model.array.length * 8);
  const view = new DataView(bytes.buffer);
  model.array.forEach((x, i) => view.setFloat64(i * 8, x, true));
  return { header: model.header, array_base64: bytesToBase64(bytes) };
}

export function modelFromJson(json: ModelJson): Model {
  const bytes = base64ToBytes(json.array_base64);
  if (bytes.length % 8 !== 0) throw new Error('model array_base64 is not a whole number of f64 values');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const array = new Float64Array(bytes.length / 8);
  for (let i = 0; i < array.length; i++) array[i] = view.getFloat64(i * 8, true);
  return new Model(json.header, array);
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
