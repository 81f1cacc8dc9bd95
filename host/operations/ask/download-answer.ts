// svc_download_answer (docs/reference/models.md#stored-answers): GET /v1/exports/{token}, the target of export.results_url (CSV, a
// row per question per case) and page.answer_url (JSON equal to the REST answer, Verdicts included). No
// key: the signed token itself authorises the download, for 24 hours from the answer's completion.
// Streamed from the store part by part (flat memory whatever the size).
import type { OpContext, OpResult } from '../../runtime/services.ts';
import type { Operation, OperationRequest } from '../operation.ts';
import { openAnswerLink, streamStoredAnswer } from '../../runtime/stored-answers.ts';

const CONTENT_TYPES = { csv: 'text/csv; charset=utf-8', json: 'application/json' } as const;

async function runDownload(ctx: OpContext, _body: unknown, req: OperationRequest): Promise<OpResult> {
  const stored = await openAnswerLink(ctx, req.params.token ?? '');
  return {
    status: 200,
    body: null,
    headers: {
      'content-length': String(stored.byte_count),
      'cache-control': 'private, no-store',
      ...(stored.kind === 'csv' ? { 'content-disposition': `attachment; filename="answer-${stored.id}.csv"` } : {}),
    },
    stream: { contentType: CONTENT_TYPES[stored.kind], bytes: streamStoredAnswer(ctx, stored, req.signal) },
  };
}

/** GET /v1/exports/{token}: a route of the spec (not an MCP tool: 1.1's GET routes are not tools). */
export const downloadAnswerOperation: Operation = {
  name: 'svc_download_answer',
  resource: 'ask',
  path: '/v1/exports/:token',
  method: 'GET',
  auth: 'none',
  body: 'none',
  title: 'Download a stored answer',
  description:
    "The target of an answer's export.results_url (text/csv: a row per question per case, each with its chance, level " +
    'or choice and reasons) and page.answer_url (application/json: the whole answer, Verdicts included). No key: the ' +
    "signed link authorises the download, for 24 hours from the answer's completion. Streamed. An unknown or altered " +
    'link is unknown_link (404); an expired one answer_expired (410). Free.',
  status: 200,
  examples: [],
  run: runDownload,
};
