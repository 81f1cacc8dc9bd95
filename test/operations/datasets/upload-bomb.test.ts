// Compressed uploads that inflate far past the cap (docs/guides/uploads.md, "Limits"): a gzip CSV of a few
// megabytes that holds a gigabyte of CSV, sent in pieces and over the presigned PUT, and Parquet files whose
// pages, or whose rows, inflate past it. Against the real service in a process of its own: each is refused with a problem
// naming the cap (inflating stopped there, nothing stored), the process stays up, and its resident memory
// stays far under the bound it documents (config.ts memoryBoundMb), measured from /proc.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryBoundMb, resolveConfig } from '../../../host/config.ts';
import { newSession, slices, uploadInPieces } from '../../helpers/files.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { encodeUploadPiece } from '../../../host/table/pieces.ts';
import { newId } from '../../../host/lib/ids.ts';
import { post, startServerProcess, type ServerProcess } from './helpers.ts';

const CAP = 100_000_000; // UPLOAD_MAX_BYTES' default, the cap of a plain CSV upload
const HEADER = 'id,visits,note,churned\n';
/** A MiB of rows (each with a long note, so a gigabyte is few cells) as one gzip member. */
const ROWS_MIB = (() => {
  const row = `c1,3,${'n'.repeat(200)},yes\n`;
  return row.repeat(Math.ceil((1024 * 1024) / row.length));
})();

/**
 * A gzip CSV of about 4 KB a MiB holding `mib` MiB of CSV: the header, then the same MiB of rows as one gzip
 * member repeated (RFC 1952 allows members one after another; gunzip and zlib read them as one stream).
 */
function gzipBomb(mib: number): Buffer {
  const member = gzipSync(ROWS_MIB, { level: 9 });
  return Buffer.concat([gzipSync(HEADER), ...Array.from({ length: mib }, () => member)]);
}

const OVERRIDES = { fitWorkers: 1, taskMemoryMb: 256, bodyMemoryBytes: 64 * 1024 * 1024, pendingWaitMs: 20_000 };
const BOUND_MB = memoryBoundMb(resolveConfig({}, OVERRIDES));
/** What a refused bomb may add to the process's resident memory: parts of 1 MiB, the inflater's chunks, GC slack. */
const GROWTH_MB = 160;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'upload-bomb-'));
let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess(dir, OVERRIDES);
});
afterAll(async () => {
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const mb = (bytes: number) => bytes / 1024 / 1024;

/** Runs `send` with the peak reset first; returns its result and the peak's growth over the RSS before it, in MiB. */
async function measured<T>(name: string, send: () => Promise<T>): Promise<{ result: T; growthMb: number; peakMb: number }> {
  server.resetPeak();
  const before = server.memory('VmRSS');
  const started = performance.now();
  const result = await send();
  const peak = server.memory('VmHWM');
  console.log(
    `${name}: ${Math.round(performance.now() - started)} ms, RSS ${mb(before).toFixed(0)} MiB -> peak ${mb(peak).toFixed(0)} MiB (bound ${BOUND_MB} MiB)`,
  );
  return { result, growthMb: mb(peak - before), peakMb: mb(peak) };
}

async function expectUp(): Promise<void> {
  const res = await fetch(`${server.url}/healthz`);
  expect(res.status).toBe(200);
}

async function newUpload(): Promise<{ id: string; url: string; pieces: string }> {
  const r = await post(server.url, '/v1/add-dataset', { upload: true }, server.key);
  expect(r.status).toBe(200);
  return { id: r.body.dataset_id, url: r.body.upload_url, pieces: r.body.upload_pieces_url };
}

const ASK = {
  entity_column: 'id',
  subject_kind: 'other',
  questions: { q: { type: 'yesno', outcome_column: 'churned' } },
  cases: { ids: ['c1'] },
};

function expectCapProblem(r: { status: number; body: any }, what: RegExp): void {
  expect(r.status).toBe(413);
  expect(r.body).toMatchObject({ status: 413, code: 'request_too_large' });
  expect(r.body.detail).toMatch(/100,000,000 bytes/);
  expect(r.body.detail).toMatch(what);
  expect(r.body.detail).toMatch(/nothing was stored/);
}

describe('a gzip CSV of 4 MB that holds a gigabyte of CSV', () => {
  const bomb = gzipBomb(1024);

  it('is a bomb: a few megabytes inflating past ten times the cap', () => {
    expect(bomb.byteLength).toBeLessThan(5_000_000);
    expect(1024 * ROWS_MIB.length).toBeGreaterThan(10 * CAP);
  });

  it('in pieces: /complete is 413 naming the cap, inflating stopped there; an ask on it is a clear problem', async () => {
    const up = await newUpload();
    const { result, growthMb, peakMb } = await measured('gzip bomb in pieces', () =>
      uploadInPieces(up.pieces, slices(bomb, 400_000), newSession()),
    );
    expectCapProblem(result, /gzip CSV holds more than/);
    expect(result.body.field).toBe('body');
    expect(peakMb).toBeLessThan(BOUND_MB);
    expect(growthMb).toBeLessThan(GROWTH_MB);
    const ask = await post(server.url, '/v1/ask', { ...ASK, data: { dataset_id: up.id } }, server.key);
    expect(ask.status).toBe(422);
    expect(ask.body).toMatchObject({ code: 'invalid_request', field: 'data.dataset_id' });
    expect(ask.body.detail).toMatch(/awaiting its upload/);
    await expectUp();
  });

  it('over the presigned PUT: 413 naming the cap, inflating stopped there; an ask on it is a clear problem', async () => {
    const up = await newUpload();
    const { result, growthMb, peakMb } = await measured('gzip bomb over PUT', async () => {
      const res = await fetch(up.url, { method: 'PUT', body: new Uint8Array(bomb), headers: { 'content-type': 'application/gzip' } });
      return { status: res.status, body: (await res.json()) as any, type: res.headers.get('content-type') };
    });
    expect(result.type).toMatch(/^application\/problem\+json/);
    expect(result.status).toBe(413);
    expect(result.body.code).toBe('request_too_large');
    expect(result.body.detail).toMatch(/inflates to more than this server's limit of 100000000 bytes of CSV/);
    expect(peakMb).toBeLessThan(BOUND_MB);
    expect(growthMb).toBeLessThan(GROWTH_MB);
    const ask = await post(server.url, '/v1/ask', { ...ASK, data: { dataset_id: up.id } }, server.key);
    expect(ask.status).toBe(422);
    expect(ask.body.detail).toMatch(/awaiting its upload/);
    await expectUp();
  });

  it('a gzip CSV under the cap is stored over the PUT as the CSV it holds, and an ask reads it', async () => {
    const up = await newUpload();
    const rows = Array.from({ length: 400 }, (_, i) => `c${i},${i % 7},n${i % 3},${i % 3 === 0 ? 'yes' : 'no'}\n`).join('');
    const res = await fetch(up.url, { method: 'PUT', body: new Uint8Array(gzipSync(HEADER + rows)) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ dataset_id: up.id, status: 'ready', rows: null, columns: null, format: 'gzip' });
    const ask = await post(server.url, '/v1/ask', { ...ASK, data: { dataset_id: up.id } }, server.key);
    expect(ask.status).toBe(200);
    expect(ask.body.record.rows).toBe(400);
  });
});

describe('Parquet files that inflate past the cap, in pieces', () => {
  /** gzip pages for hyparquet-writer (its own codecs are snappy and none). */
  const compressors = { GZIP: (bytes: Uint8Array) => new Uint8Array(gzipSync(bytes, { level: 9 })) };

  it('pages that hold more than the cap once decompressed: 413 at /complete, refused from the page headers', async () => {
    // 120 values of a MiB each, written plainly (no dictionary) in gzip pages of a MiB: 120 MiB of pages
    const mib = 'a'.repeat(1024 * 1024);
    const file = parquetWriteBuffer({
      columnData: [
        { name: 'id', data: Array.from({ length: 120 }, (_, i) => `c${i}`), type: 'STRING' },
        { name: 'note', data: Array.from({ length: 120 }, () => mib), type: 'STRING', encoding: 'PLAIN' },
      ],
      codec: 'GZIP',
      compressors,
      statistics: false,
    });
    expect(file.byteLength).toBeLessThan(1_000_000);
    const up = await newUpload();
    const { result, growthMb, peakMb } = await measured('Parquet page bomb', () =>
      uploadInPieces(up.pieces, slices(new Uint8Array(file), 300_000), newSession()),
    );
    expectCapProblem(result, /pages hold more than 100,000,000 bytes once decompressed/);
    expect(peakMb).toBeLessThan(BOUND_MB);
    expect(growthMb).toBeLessThan(GROWTH_MB);
    await expectUp();
  });

  it('a dictionary value repeated past the cap (small pages, a huge CSV): 413, rendering stopped at the cap', async () => {
    // one MiB value in the dictionary, 200 rows pointing at it: pages of about a MiB, 200 MiB of CSV
    const mib = 'b'.repeat(1024 * 1024);
    const file = parquetWriteBuffer({
      columnData: [
        { name: 'id', data: Array.from({ length: 200 }, (_, i) => `c${i}`), type: 'STRING' },
        { name: 'note', data: Array.from({ length: 200 }, () => mib), type: 'STRING' },
      ],
      codec: 'GZIP',
      compressors,
      statistics: false,
    });
    const up = await newUpload();
    const { result, growthMb, peakMb } = await measured('Parquet dictionary bomb', () =>
      uploadInPieces(up.pieces, slices(new Uint8Array(file), 300_000), newSession()),
    );
    expectCapProblem(result, /Parquet file holds more than 100,000,000 bytes of CSV/);
    expect(peakMb).toBeLessThan(BOUND_MB);
    expect(growthMb).toBeLessThan(GROWTH_MB);
    await expectUp();
  });
});

describe('a Parquet file of a few hundred bytes holding 5,000,000 rows of nulls (each page decoded whole)', () => {
  it('/complete counts it from its footer without decoding it; the ask reads it in a task, which ends alone: 422, the service up', async () => {
    const nulls = new Array<null>(5_000_000).fill(null);
    const file = parquetWriteBuffer({
      columnData: [
        { name: 'id', data: nulls, type: 'STRING', nullable: true },
        { name: 'churned', data: nulls, type: 'STRING', nullable: true },
      ],
      rowGroupSize: nulls.length,
      statistics: false,
    });
    expect(file.byteLength).toBeLessThan(1000);
    const up = await newUpload();
    const stored = await measured('Parquet null bomb, /complete', () => uploadInPieces(up.pieces, [new Uint8Array(file)], newSession()));
    expect(stored.result.status).toBe(200);
    expect(stored.result.body).toMatchObject({ status: 'ready', format: 'parquet', rows: null, columns: null });
    expect(stored.growthMb).toBeLessThan(GROWTH_MB);
    const asked = await measured('Parquet null bomb, ask', async () => {
      let r = await post(server.url, '/v1/ask', { ...ASK, data: { dataset_id: up.id } }, server.key);
      for (let i = 0; i < 1200 && r.status === 202; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        r = await post(server.url, '/v1/poll', { task_id: r.body.task_id }, server.key);
      }
      return r;
    });
    expect(asked.result.status).toBe(422);
    expect(asked.result.body.code).toBe('record_too_large');
    expect(asked.peakMb).toBeLessThan(BOUND_MB);
    await expectUp();
  });
});

describe('a gzip or Parquet dataset whose rows were never counted (stored before they were)', () => {
  let svc: TestService;
  let a: { key: string; workspaceId: string };
  beforeAll(async () => {
    // every ask that runs as a task answers 202 at once, so where the record is read shows
    svc = await startTestService({ pendingWaitMs: 0, maxUploadBytes: 5_000_000 });
    a = await svc.liveCaller('uncounted');
  });
  afterAll(() => svc?.close());

  /** A dataset of `file` as the upload in pieces stored one before rows were counted: row_count 0, columns null. */
  async function storeUncounted(format: 'gzip' | 'parquet', file: Uint8Array): Promise<string> {
    const { store } = svc.services;
    const id = newId('ds_');
    const at = Date.now();
    await store.createDataset({
      id,
      workspace_id: a.workspaceId,
      status: 'awaiting_upload',
      columns: null,
      row_count: 0,
      filename: null,
      created_at: at,
      last_used_at: at,
    });
    const session = newSession();
    const pieces = slices(file, 4_000_000);
    let offset = 0;
    for (const [index, piece] of pieces.entries()) {
      const content = encodeUploadPiece(format, offset, new Uint8Array(0), piece);
      const r = await store.receiveUploadPiece({
        workspace_id: a.workspaceId,
        dataset_id: id,
        session,
        index,
        format,
        content,
        bytes: piece.byteLength,
        rows: 0,
        header: null,
        open_row: false,
        at,
      });
      expect(r.ok).toBe(true);
      offset += piece.byteLength;
    }
    expect((await store.completeUpload(a.workspaceId, id, session, pieces.length, { columns: null, row_count: 0, at })).ok).toBe(true);
    return id;
  }

  async function askAndPoll(id: string): Promise<{ first: number; last: { status: number; body: any } }> {
    const first = await svc.post('/v1/ask', { ...ASK, data: { dataset_id: id } }, a.key);
    let last = first;
    for (let i = 0; i < 600 && last.status === 202; i++) {
      await new Promise((r) => setTimeout(r, 100));
      last = await svc.post('/v1/poll', { task_id: first.body.task_id }, a.key);
    }
    return { first: first.status, last };
  }

  it('is read in a task, never on the request thread, and answers', async () => {
    const rows = Array.from({ length: 300 }, (_, i) => `c${i},${i % 9},n${i % 4},${i % 3 === 0 ? 'yes' : 'no'}\n`).join('');
    const id = await storeUncounted('gzip', gzipSync(HEADER + rows));
    const { first, last } = await askAndPoll(id);
    expect(first).toBe(202);
    expect(last.status).toBe(200);
    expect(last.body.record.rows).toBe(300);
  });

  it('svc_preflight, which reads on the request thread, refuses it (422 record_too_large) rather than read it there', async () => {
    const id = await storeUncounted('gzip', gzipBomb(1024));
    const r = await svc.post('/v1/preflight', { dataset_id: id, outcome_column: 'churned' }, a.key);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'record_too_large', field: 'dataset_id' });
    expect(r.body.detail).toMatch(/unknown size/);
    expect(r.body.remedy).toMatch(/svc_ask/);
  });

  it('a gigabyte gzip stored so is read up to the cap, then 422 record_too_large naming it; the service answers on', async () => {
    const id = await storeUncounted('gzip', gzipBomb(1024));
    const { first, last } = await askAndPoll(id);
    expect(first).toBe(202);
    expect(last.status).toBe(422);
    expect(last.body).toMatchObject({ code: 'record_too_large', field: 'data.dataset_id' });
    expect(last.body.detail).toMatch(/holds more than 5,000,000 bytes of CSV/);
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
  });
});
