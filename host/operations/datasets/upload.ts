// `PUT /v1/uploads/<token>` (wire.md "Datasets"): the presigned upload of a large CSV. The token
// authorises; the body is streamed to a file under DATA_DIR, checked as CSV on the way, then stored
// as the dataset's single piece and the dataset becomes ready.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ServiceError } from '../../http/problem.ts';
import type { AddDatasetResponse } from '../../schemas/index.ts';
import type { OpContext, OpResult } from '../../services.ts';
import { datasetSettings } from './config.ts';
import { CsvScanner, type CsvSummary } from './csv-scan.ts';
import { kindByte } from './pieces.ts';
import { datasetReply } from './reply.ts';
import { unknownDataset } from './errors.ts';
import { verifyUploadToken } from './upload-token.ts';

/** Where bodies wait while they arrive; the sweeper clears leftovers of crashed processes. */
export const UPLOAD_DIR = 'uploads';
const FIELD = 'body';

const finished = (id: string) =>
  new ServiceError('dataset_sealed', `The upload of dataset ${id} already finished; a dataset takes one upload. Request a new upload URL with add-dataset (upload: true).`);

export async function uploadOperation(
  ctx: OpContext, token: string, body: ReadableStream<Uint8Array> | null, declaredBytes?: number,
): Promise<OpResult<AddDatasetResponse>> {
  const { store, config, now } = ctx.services;
  const grant = verifyUploadToken(config, token, now());
  const dataset = await store.getDataset(grant.workspaceId, grant.datasetId);
  if (!dataset) throw unknownDataset(grant.datasetId, 'upload_url');
  if (dataset.status !== 'awaiting_upload') throw finished(dataset.id);

  const { maxUploadBytes } = datasetSettings(config);
  if (declaredBytes !== undefined && declaredBytes > maxUploadBytes) throw tooLarge(maxUploadBytes);
  const dir = path.join(config.dataDir, UPLOAD_DIR);
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, `${dataset.id}.${randomBytes(6).toString('hex')}.part`);
  try {
    const { size, summary } = await receive(body, file, maxUploadBytes);
    const result = await store.appendDatasetPiece({
      workspace_id: grant.workspaceId,
      dataset_id: dataset.id,
      seq: 1, // one upload per dataset: a second, concurrent PUT finds seq 1 taken
      content: await readPiece(file, size),
      row_count: summary.rowCount,
      columns: JSON.stringify(summary.columns),
      status: 'ready',
      at: now(),
    });
    if (result.ok) return { status: 200, body: datasetReply(result.dataset) };
    if (result.reason === 'unknown_dataset') throw unknownDataset(dataset.id, 'upload_url');
    throw finished(dataset.id);
  } finally {
    await fs.rm(file, { force: true });
  }
}

/** Streams the body to `file` (never more than `limit` bytes), checking it as CSV on the way. */
async function receive(body: ReadableStream<Uint8Array> | null, file: string, limit: number): Promise<{ size: number; summary: CsvSummary }> {
  const scanner = new CsvScanner(FIELD);
  const out = await fs.open(file, 'wx', 0o600);
  const reader = body?.getReader();
  let size = 0;
  try {
    for (;;) {
      const next = reader ? await reader.read() : { done: true as const, value: undefined };
      if (next.done) break;
      size += next.value.byteLength;
      if (size > limit) throw tooLarge(limit);
      scanner.push(next.value);
      await out.write(next.value);
    }
    return { size, summary: scanner.finish() };
  } catch (err) {
    await reader?.cancel().catch(() => undefined);
    throw err;
  } finally {
    await out.close();
  }
}

/** The stored piece: the kind byte, then the file read once into the same buffer (no second copy). */
async function readPiece(file: string, size: number): Promise<Buffer> {
  const content = Buffer.allocUnsafe(size + 1);
  content[0] = kindByte('csv');
  const handle = await fs.open(file, 'r');
  try {
    let at = 0;
    while (at < size) {
      const { bytesRead } = await handle.read(content, 1 + at, size - at, at);
      if (bytesRead === 0) throw new Error(`upload file ${file} ended early`);
      at += bytesRead;
    }
  } finally {
    await handle.close();
  }
  return content;
}

function tooLarge(limit: number): ServiceError {
  return new ServiceError('request_too_large', `The upload is larger than this server's limit of ${limit} bytes; nothing was stored.`);
}
