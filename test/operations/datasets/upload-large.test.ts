// docs/guides/pending-asks.md: a 60 MB gzip CSV uploaded in pieces answers as the same CSV does: the Telco table widened with a
// column of random text (kept from compressing, and left out of the model as an identifier), sent once as
// raw gzip slices and once as CSV pieces; both give one content hash and one model_ref.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { csvPieces, gzip, slices, telcoCsv, uploadInPieces } from '../../helpers/files.ts';

let svc: TestService;
let key: string;
let csv: string;
let gz: Buffer;

/** The Telco CSV with a `note` of `chars` random base64 characters on every row. */
function widened(chars: number): string {
  const [head, ...rows] = telcoCsv().trimEnd().split('\n');
  const noise = randomBytes(Math.ceil((rows.length * chars * 3) / 4)).toString('base64');
  return [`${head},note`, ...rows.map((r, i) => `${r},${noise.slice(i * chars, (i + 1) * chars)}`)].join('\n') + '\n';
}

beforeAll(async () => {
  svc = await startTestService();
  key = await svc.liveKey();
  csv = widened(11_400);
  gz = gzip(csv, 1);
}, 120_000);
afterAll(() => svc.close());

async function upload(pieces: Buffer[]): Promise<string> {
  const r = await svc.post('/v1/add-dataset', { upload: true }, key);
  const done = await uploadInPieces(r.body.upload_pieces_url, pieces);
  expect(done.status, JSON.stringify(done.body)).toBe(200);
  return r.body.dataset_id;
}

const ask = (datasetId: string) =>
  svc.post(
    '/v1/ask',
    {
      data: { dataset_id: datasetId },
      entity_column: 'customer_id',
      subject_kind: 'org',
      questions: { q: { type: 'yesno', outcome_column: 'churn' } },
      cases: { ids: ['c00001'] },
    },
    key,
  );

describe('a 60 MB gzip CSV in pieces', () => {
  it('answers as the same CSV sent in CSV pieces: same content hash, same model_ref', async () => {
    expect(gz.byteLength).toBeGreaterThan(58_000_000);
    expect(gz.byteLength).toBeLessThan(64_000_000);
    const fromGzip = await upload(slices(gz, 4_000_000));
    const fromCsv = await upload(csvPieces(csv, 3_900_000));
    const a = await ask(fromGzip);
    const b = await ask(fromCsv);
    expect(a.status).toBe(200);
    expect(a.body.record.content_hash).toBe(b.body.record.content_hash);
    expect(a.body.answers.q.state).toBe('answered');
    expect(a.body.answers.q.model_ref).toBe(b.body.answers.q.model_ref);
    expect(a.body.answers.q.quality.excluded_columns).toEqual(expect.arrayContaining([expect.objectContaining({ column: 'note' })]));
  }, 300_000);
});
