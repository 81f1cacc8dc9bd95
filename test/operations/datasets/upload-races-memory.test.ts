// The memory the upload races of upload-abuse.test.ts take, measured in a server process of its own (VmHWM,
// its peak RSS, against its RSS at rest; a process of its own because a process that has peaked before reuses
// that memory and shows no growth): three files sent in pieces at once, every piece sent four times at once
// and /complete five times at once; then eight gzip files of a few KB whose one row inflates past the
// 8,000,000-byte row limit, refused at once, four in pieces and four over PUT. Each refusal stops reading at
// the limit (docs/guides/uploads.md, "Limits"), so the peak is bounded by a constant, not by what the files
// would inflate to.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { post, startServerProcess, type ServerProcess } from './helpers.ts';
import { complete, csvPieces, gzip, newSession, sendPiece, telcoCsv } from '../../helpers/files.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'upload-races-'));
let server: ServerProcess;
// no ask here, so no task thread to start and wait for
beforeAll(async () => {
  server = await startServerProcess(dir, { warmThreads: false });
});
afterAll(async () => {
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

/**
 * What the races may add to the resting RSS (VmHWM is a high-water mark, so the whole run is bounded). A row
 * is held until its end or the 8,000,000-byte row limit, so each of the 8 refused files holds about that
 * much CSV while it is read; the rest of each gzip is then inflated to check the stream (decision 0078), its
 * output dropped chunk by chunk, which leaves garbage for the collector: 70-110 MB in all, measured on 2 busy
 * cores. Holding each row to its end (48 MB) would be 8 x 48 MB; the telco pieces are 300 KB each.
 */
const RACES_BOUND_BYTES = 160 * 1024 * 1024;
const BOMB_ROW_BYTES = 48_000_000;
it('races of uploads in pieces and over PUT peak a bounded amount above the resting RSS', async () => {
  const newUpload = async () => (await post(server.url, '/v1/add-dataset', { upload: true }, server.key)).body;
  const pieces = csvPieces(telcoCsv(), 300_000);
  const bomb = gzip(`a,b\n1,2\n${'x'.repeat(BOMB_ROW_BYTES)},3\n4,5\n`, 9);
  const files = await Promise.all([0, 1, 2].map(newUpload));
  const bombs = await Promise.all([0, 1, 2, 3].map(newUpload));
  const puts = await Promise.all([0, 1, 2, 3].map(newUpload));
  const rest = server.memory('VmRSS');
  server.resetPeak();

  const stored = await Promise.all(
    files.map(async (up) => {
      const s = newSession();
      for (let i = 0; i < pieces.length; i++) {
        const replies = await Promise.all([0, 1, 2, 3].map(() => sendPiece(up.upload_pieces_url, i, pieces[i], s)));
        expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      }
      const done = await Promise.all([0, 1, 2, 3, 4].map(() => complete(up.upload_pieces_url, pieces.length, s)));
      return done.map((r) => r.status).sort();
    }),
  );
  for (const statuses of stored) expect(statuses).toEqual([200, 409, 409, 409, 409]);
  const racesPeak = server.memory('VmHWM') - rest;

  const refused = await Promise.all([
    ...bombs.map(async (up) => {
      const s = newSession();
      expect((await sendPiece(up.upload_pieces_url, 0, bomb, s)).status).toBe(200);
      return complete(up.upload_pieces_url, 1, s);
    }),
    ...puts.map(async (up) => {
      const res = await fetch(up.upload_url, {
        method: 'PUT',
        body: new Uint8Array(bomb),
        headers: { 'content-type': 'application/gzip' },
      });
      return { status: res.status, body: (await res.json()) as any };
    }),
  ]);
  for (const r of refused) expect(r.body).toMatchObject({ status: 422, code: 'invalid_request', field: 'body' });
  const peak = server.memory('VmHWM') - rest;
  console.log(
    `upload races: server RSS at rest ${mb(rest)}; peak above it ${mb(racesPeak)} after 3 files x ${pieces.length} pieces ` +
      `(each sent 4 times at once, /complete 5 times at once), ${mb(peak)} after 8 gzip files of ${bomb.byteLength} bytes ` +
      `(a ${mb(BOMB_ROW_BYTES)} row) refused at once (4 in pieces, 4 PUT)`,
  );
  expect(peak).toBeLessThan(RACES_BOUND_BYTES);
});
