// The held-out rows of a fit, kept with the stored fit as a packed bitset (one bit per input row)
// so a later refit_of can evaluate an older model on exactly these rows (docs/reference/outcomes.md#drift drift).
import { ROW_HELD_OUT } from '../../engine/abi.ts';

/** Packs a fit's per-row split codes into base64 of a bitset: bit r set when row r was held out. */
export function packHeldOut(rowSplit: Uint8Array): string {
  const bits = new Uint8Array(Math.ceil(rowSplit.length / 8));
  for (let r = 0; r < rowSplit.length; r++) if (rowSplit[r] === ROW_HELD_OUT) bits[r >> 3] |= 1 << (r & 7);
  return Buffer.from(bits).toString('base64');
}

/** Indices of the held-out rows of a table of `rowCount` rows, or null when nothing was stored. */
export function unpackHeldOut(packed: unknown, rowCount: number): number[] | null {
  if (typeof packed !== 'string') return null;
  const bits = Buffer.from(packed, 'base64');
  if (bits.length !== Math.ceil(rowCount / 8)) return null;
  const rows: number[] = [];
  for (let r = 0; r < rowCount; r++) if (bits[r >> 3] & (1 << (r & 7))) rows.push(r);
  return rows;
}

/**
 * The logits the tested models gave the held-out rows, in row order, as base64 of little-endian f64.
 * Kept only for a cross-fitted fit: there the served model learned from every row, so only these
 * (each row scored by the fold model that never saw it) are held-out predictions. A single split's
 * served model is the tested one, so scoring it again gives the same numbers and nothing is kept.
 */
export function packHeldLogits(rowSplit: Uint8Array, heldLogits: Float64Array): string {
  const out: number[] = [];
  for (let r = 0; r < rowSplit.length; r++) if (rowSplit[r] === ROW_HELD_OUT) out.push(heldLogits[r]);
  const f = Float64Array.from(out);
  return Buffer.from(f.buffer, f.byteOffset, f.byteLength).toString('base64');
}

/** The held-out logits of packHeldLogits, or null when none were kept or they do not fit `heldCount`. */
export function unpackHeldLogits(packed: unknown, heldCount: number): Float64Array | null {
  if (typeof packed !== 'string') return null;
  const bytes = Buffer.from(packed, 'base64');
  if (bytes.length !== heldCount * 8) return null;
  const out = new Float64Array(heldCount);
  for (let i = 0; i < heldCount; i++) out[i] = bytes.readDoubleLE(i * 8);
  return out;
}
