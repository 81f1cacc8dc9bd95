// Stored pieces (pieces.ts): an upload's parts hash as the one CSV they make, alone or among other pieces,
// wherever they are cut; parts that do not join up are refused rather than read as a record.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  PART_HEAD_BYTES,
  RecordHasher,
  TableConcatenator,
  decodePiece,
  encodePiece,
  pieceTable,
  writePartHead,
} from '../../host/table/pieces.ts';

const CSV = Buffer.from('id,x\na,1\nb,2\nc,3\n');
const HEADER = Buffer.from('id,x\n');

/** The stored parts of CSV cut at `cuts` (row starts), as upload-dataset.ts writes them. */
function parts(cuts: number[]): Uint8Array[] {
  const bounds = [0, ...cuts, CSV.length];
  return bounds.slice(0, -1).map((start, k) => {
    const header = k === 0 ? Buffer.alloc(0) : HEADER;
    const out = Buffer.alloc(PART_HEAD_BYTES + header.length + bounds[k + 1] - start);
    writePartHead(out, CSV.length, start, header.length);
    header.copy(out, PART_HEAD_BYTES);
    CSV.copy(out, PART_HEAD_BYTES + header.length, start, bounds[k + 1]);
    return out;
  });
}

function hashOf(stored: Uint8Array[]): string {
  const h = new RecordHasher();
  for (const s of stored) h.add(decodePiece(s));
  return h.digest();
}

const rowStarts = [5, 9, 13]; // where 'a,1', 'b,2' and 'c,3' begin
const cutsList = [[], [5], [9], [13], [5, 9], [5, 13], [9, 13], rowStarts];

describe('upload parts', () => {
  it('hash as the SHA-256 of the CSV, and read as its table, however the CSV was cut', () => {
    const sha = createHash('sha256').update(CSV).digest('hex');
    for (const cuts of cutsList) {
      expect(hashOf(parts(cuts)), `cuts ${cuts}`).toBe(sha);
      const tables = new TableConcatenator();
      for (const p of parts(cuts)) tables.add(pieceTable(decodePiece(p), 'data.dataset_id'));
      expect(tables.result()).toEqual({
        columns: ['id', 'x'],
        data: [
          ['a', 'b', 'c'],
          ['1', '2', '3'],
        ],
        rowCount: 3,
      });
    }
    expect(rowStarts.every((at) => CSV[at - 1] === 10)).toBe(true);
  });

  it('frame among other pieces exactly as one csv piece of the same bytes', () => {
    const rows = encodePiece('rows', JSON.stringify([{ id: 'z', x: 9 }]));
    const whole = hashOf([rows, encodePiece('csv', CSV)]);
    for (const cuts of cutsList) expect(hashOf([rows, ...parts(cuts)]), `cuts ${cuts}`).toBe(whole);
    expect(whole).not.toBe(hashOf([encodePiece('csv', CSV), rows])); // order still counts
  });

  it('refuse a missing, repeated or out-of-order part', () => {
    const [p1, p2, p3] = parts([5, 9]);
    expect(() => hashOf([p1, p3])).toThrow(/part is missing/);
    expect(() => hashOf([p1, p2])).toThrow(/part is missing/); // ends short
    expect(() => hashOf([p2, p3])).toThrow(/part is missing/); // no start
    expect(() => hashOf([p1, p2, p2, p3])).toThrow(/part is missing/);
    expect(() => hashOf([p1, encodePiece('csv', CSV)])).toThrow(/part is missing/);
  });
});
