// svc_page (docs/reference/models.md#stored-answers): the next page of an MCP-paged answer. Pages are in-order slices of the stored
// answer (a cursor is a position, not a format); a cursor expires with its answer (24 hours: 410
// answer_expired, as the export link); an altered or unknown one is 404 unknown_link.
import { ServiceError } from '../../errors.ts';
import { parseBody } from '../../schemas/index.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { formatAnswers, MCP_PAGE_CHARS, PAGE_OVERHEAD_CHARS, pageFields, pageInfo, sliceAnswers } from './formats.ts';
import { EXAMPLE_IDS, FREE, READ_ONLY, type Operation } from '../operation.ts';
import { openCursor, readStoredAnswer } from '../../runtime/stored-answers.ts';
import { PageRequestSchema, PageResponseSchema } from './page.schema.ts';

async function runPage(ctx: OpContext, raw: unknown): Promise<OpResult> {
  const req = parseBody(PageRequestSchema, raw);
  const { ref, offset } = openCursor(ctx, req.cursor);
  const stored = await readStoredAnswer(ctx, ref);
  if (stored === null) throw new ServiceError('unknown_link', 'cursor: its answer is no longer stored', { field: 'cursor' });
  // never changed: slices and compact copies are new objects
  let body = stored as Record<string, unknown> & { answers?: Record<string, Record<string, unknown>> };
  if (req.response_format === 'compact') body = formatAnswers(body, 'compact');
  const slice = sliceAnswers(body.answers ?? {}, offset, MCP_PAGE_CHARS - PAGE_OVERHEAD_CHARS, pageFields);
  return { status: 200, body: { status: 'done', answers: slice.answers, page: pageInfo(ctx, ref, slice.next) } };
}

/** svc_page: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const pageOperation: Operation = {
  name: 'svc_page',
  resource: 'ask',
  path: '/v1/page',
  method: 'POST',
  auth: 'key',
  body: 'json',
  title: 'Next page of a large answer',
  description:
    'Returns the next page of an answer that came back paged (over MCP an answer above about 60,000 characters returns ' +
    'page one with page.next_cursor): send page.next_cursor verbatim as cursor. Returns {status: "done", answers, page ' +
    '{answer_url, expires_at, next_cursor}}; each answer keeps type, state and model_ref, and its cases (or ranked) ' +
    'slice carries page {offset, returned, total}. next_cursor is absent on the last page. response_format compact ' +
    'keeps each case lean; a cursor is a position, not a format. The whole answer, Verdicts included, is at ' +
    'page.answer_url (GET, no key) for 24 hours; an expired cursor is answer_expired. ' +
    FREE,
  request: PageRequestSchema,
  response: PageResponseSchema,
  status: 200,
  pending: false,
  tool: READ_ONLY,
  examples: [{ name: 'next', summary: 'The page.next_cursor a paged answer gave', value: { cursor: EXAMPLE_IDS.cursor } }],
  run: runPage,
};
