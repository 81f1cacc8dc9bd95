// docs/reference/ask.md#response-format response_format and 3.7 large answers. `concise` keeps answers without Verdicts (the full
// copy at page.answer_url), `compact` also keeps each case lean (~1/20 the size); states and chances never
// differ between formats. Over MCP an answer above ~60,000 characters comes back as page one with
// page {next_cursor, answer_url, expires_at}; svc_page gives the next slices. REST answers are whole.
import { resultJson, type OpContext, type OpResult } from '../../runtime/services.ts';
import { answerLink, cursorOf, storeAnswerText, type StoredRef } from '../../runtime/stored-answers.ts';
import type { Transport } from '../operation.ts';

export type ResponseFormat = 'full' | 'concise' | 'compact';

/** docs/reference/ask.md#large-answers: about 60 cases with Verdicts. */
export const MCP_PAGE_CHARS = 60_000;
/** Room kept on a page for its `page` object (a cursor of up to a few hundred characters). */
const PAGE_OVERHEAD_CHARS = 1_000;

const CASE_LISTS = ['cases', 'ranked'] as const;
type Answer = Record<string, unknown>;
type Body = Record<string, unknown> & { answers?: Record<string, Answer> };

/** docs/reference/ask.md#response-format compact: entity_id, p, p_display, plus band, level, says if present; unreadable and declined cases keep why. */
export function compactCase(c: Record<string, unknown>): Record<string, unknown> {
  if (c.state === 'not_scoreable') {
    const out: Record<string, unknown> = { entity_id: c.entity_id, state: c.state, not_scoreable: c.not_scoreable };
    if (c.row !== undefined) out.row = c.row;
    return out;
  }
  const out: Record<string, unknown> = { entity_id: c.entity_id, p: c.p, p_display: c.p_display };
  for (const k of ['band', 'level', 'says', 'choice', 'refused', 'refused_reason'] as const) if (c[k] !== undefined) out[k] = c[k];
  return out;
}

function withoutVerdicts(a: Answer, reason: string): Answer {
  if (!Array.isArray(a.verdicts)) return a;
  const { verdicts, ...rest } = a;
  return { ...rest, verdicts_withheld: { count: (verdicts as unknown[]).length, reason } };
}

/** The answers of `body` in a format other than full. */
export function formatAnswers(body: Body, format: Exclude<ResponseFormat, 'full'>): Body {
  const answers: Record<string, Answer> = {};
  for (const [name, a] of Object.entries(body.answers ?? {})) {
    let out = withoutVerdicts(a, `response_format_${format}`);
    if (format === 'compact') {
      out = { ...out };
      for (const k of CASE_LISTS) if (Array.isArray(out[k])) out[k] = (out[k] as Record<string, unknown>[]).map(compactCase);
      if (Array.isArray(out.not_scoreable)) out.not_scoreable = (out.not_scoreable as Record<string, unknown>[]).map(compactCase);
    }
    answers[name] = out;
  }
  // docs/reference/map.md#backtest: a backtest's one Verdict sits at the top (it has no answers)
  if (body.verdict !== undefined && body.answers === undefined) {
    const { verdict: _v, signature: _s, ...rest } = body;
    return { ...rest, verdicts_withheld: { count: 1, reason: `response_format_${format}` } };
  }
  return { ...body, answers };
}

/** The case list of an answer (cases or ranked), if it has one. */
function listOf(a: Answer): { key: (typeof CASE_LISTS)[number]; items: unknown[] } | null {
  for (const key of CASE_LISTS) if (Array.isArray(a[key])) return { key, items: a[key] as unknown[] };
  return null;
}

export interface Slice {
  answers: Record<string, Answer>;
  /** The global position of the next page, or null on the last. */
  next: number | null;
}

/**
 * The answers' case lists sliced from global position `offset` (the lists of all answers, in answer order,
 * read as one) to as many cases as fit in `budget` characters (at least one); each sliced list carries
 * `page {offset, returned, total}`. `keep` picks what else of each answer a page carries.
 */
export function sliceAnswers(answers: Record<string, Answer>, offset: number, budget: number, keep: (a: Answer) => Answer): Slice {
  const out: Record<string, Answer> = {};
  let base = 0;
  let used = 0;
  let position = offset;
  let full = false;
  let grand = 0;
  for (const a of Object.values(answers)) grand += listOf(a)?.items.length ?? 0;
  for (const [name, a] of Object.entries(answers)) {
    const copy = keep(a);
    const list = listOf(a);
    if (list) {
      const from = Math.min(Math.max(position - base, 0), list.items.length);
      let to = from;
      while (!full && to < list.items.length && position === base + to) {
        const size = JSON.stringify(list.items[to]).length + 1;
        if (used > 0 && used + size > budget) {
          full = true;
          break;
        }
        used += size;
        to++;
        position++;
      }
      copy[list.key] = list.items.slice(from, to);
      copy.page = { offset: from, returned: to - from, total: list.items.length };
      base += list.items.length;
    }
    out[name] = copy;
  }
  return { answers: out, next: position < grand ? position : null };
}

/** The top-level page object of a stored answer (docs/reference/models.md#stored-answers). */
export function pageInfo(ctx: OpContext, ref: StoredRef, next: number | null): Record<string, unknown> {
  const ws = ctx.caller!.workspaceId;
  return {
    answer_url: answerLink(ctx.services, ws, ref),
    expires_at: new Date(ref.expiresAt).toISOString(),
    ...(next !== null ? { next_cursor: cursorOf(ctx.services, ws, ref, next) } : {}),
  };
}

/**
 * The reply of a done ask or poll in the format asked for, paged over MCP when too large. Anything but a
 * done answer passes unchanged. `storedId` stores the full answer once under that id (a task's answer,
 * polled many times).
 */
export async function replyInFormat(
  ctx: OpContext,
  result: OpResult,
  opts: { format: ResponseFormat; transport: Transport; storedId?: string },
): Promise<OpResult> {
  const body = result.body as Body;
  if (result.status !== 200 || body?.status !== 'done') return result;
  const mcp = opts.transport === 'mcp';
  let fullText: string | undefined;
  if (opts.format === 'full') {
    if (!mcp) return result;
    fullText = resultJson(result);
    if (fullText.length <= MCP_PAGE_CHARS) return result;
  }
  const ref = await storeAnswerText(ctx, fullText ?? resultJson(result), opts.storedId);
  const formatted: Body = opts.format === 'full' ? { ...body } : formatAnswers(body, opts.format);
  formatted.page = pageInfo(ctx, ref, null);
  if (!mcp || JSON.stringify(formatted).length <= MCP_PAGE_CHARS) return { status: 200, body: formatted };
  // docs/reference/ask.md#large-answers: page one. Verdicts cover every case, so they stay behind answer_url.
  const answers: Record<string, Answer> = {};
  for (const [name, a] of Object.entries(formatted.answers ?? {})) answers[name] = withoutVerdicts(a, 'too_large_for_one_response');
  const fixed = JSON.stringify({ ...formatted, answers: Object.fromEntries(Object.entries(answers).map(([n, a]) => [n, emptyLists(a)])) });
  const slice = sliceAnswers(answers, 0, Math.max(1, MCP_PAGE_CHARS - fixed.length - PAGE_OVERHEAD_CHARS), (a) => ({ ...a }));
  return { status: 200, body: { ...formatted, answers: slice.answers, page: pageInfo(ctx, ref, slice.next) } };
}

function emptyLists(a: Answer): Answer {
  const out = { ...a };
  for (const k of CASE_LISTS) if (Array.isArray(out[k])) out[k] = [];
  return out;
}

/** What a later page (svc_page) keeps of each answer besides its slice (docs/reference/models.md#stored-answers). */
export function pageFields(a: Answer): Answer {
  const out: Answer = { type: a.type, state: a.state };
  if (a.model_ref !== undefined) out.model_ref = a.model_ref;
  if (a.model_refs !== undefined) out.model_refs = a.model_refs;
  if (a.decision !== undefined) out.decision = a.decision;
  return out;
}

export { PAGE_OVERHEAD_CHARS };
