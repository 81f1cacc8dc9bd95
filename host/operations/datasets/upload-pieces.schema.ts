// The request of upload_complete (upload_piece's body is the piece's bytes).
import * as v from 'valibot';
import { PIECES_MAX } from './formats.ts';

export const CompleteRequestSchema = v.strictObject({
  pieces: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(PIECES_MAX)),
});
