// Streaming UTF-8 validation of an upload without decoding it: a decoded string per chunk would put
// the whole body through the JS heap as garbage, and the young generation grows to hold it.
import { isUtf8 } from 'node:buffer';

const EMPTY = new Uint8Array(0);

/** Bytes in the sequence a lead byte starts (1 for a byte that cannot lead, so validation refuses it). */
function sequenceLength(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 1;
}

const isContinuation = (b: number) => (b & 0xc0) === 0x80;

/**
 * Feed chunks with push(), then end(); each says whether the bytes so far can still be UTF-8 (the same
 * verdict as TextDecoder('utf-8', { fatal: true }) over the whole input). A character cut by a chunk
 * end waits (at most 3 bytes) and is checked once complete.
 */
export class Utf8Check {
  private tail: Uint8Array = EMPTY;

  push(chunk: Uint8Array): boolean {
    let from = 0;
    if (this.tail.length > 0) {
      const need = sequenceLength(this.tail[0]) - this.tail.length;
      const take = Math.min(need, chunk.length);
      for (let i = 0; i < take; i++) if (!isContinuation(chunk[i])) return false;
      const joined = new Uint8Array(this.tail.length + take);
      joined.set(this.tail);
      joined.set(chunk.subarray(0, take), this.tail.length);
      if (take < need) {
        this.tail = joined;
        return true;
      }
      if (!isUtf8(joined)) return false;
      this.tail = EMPTY;
      from = take;
    }
    // A lead byte among the last 3 whose sequence runs past the end waits for the next chunk.
    let cut = chunk.length;
    let i = chunk.length - 1;
    while (i > from && i > chunk.length - 4 && isContinuation(chunk[i])) i--;
    if (i >= from && !isContinuation(chunk[i]) && sequenceLength(chunk[i]) > chunk.length - i) cut = i;
    if (!isUtf8(chunk.subarray(from, cut))) return false;
    this.tail = chunk.slice(cut);
    return true;
  }

  /** False when the input ended inside a character. */
  end(): boolean {
    return this.tail.length === 0;
  }
}
