// Answers kept 24 hours for links (docs/reference/models.md#stored-answers, docs/reference/ask.md#response-format, docs/reference/ask.md#large-answers): the full answer behind page.answer_url and
// svc_page cursors, and the export CSV behind export.results_url. Written to the store in parts of about
// 1 MiB as they are made and streamed back part by part, so neither side ever holds one whole. Links are
// signed tokens (HMAC, as upload and lever tokens) naming the workspace, the stored answer and its expiry.
import { ServiceError } from '../errors.ts';
import type { StoredAnswer, StoredAnswerKind } from '../store/index.ts';
import type { OpContext } from './services.ts';
import { tokenCodec, type LinkSigning } from '../signing/hmac-token.ts';
import { newId } from '../lib/ids.ts';
import { WeightedLru } from '../lib/lru.ts';

/** docs/reference/models.md#stored-answers: valid 24 hours from the answer's completion. */
export const ANSWER_TTL_MS = 24 * 60 * 60 * 1000;
/** About this many bytes per stored part (as dataset uploads: SQLite holds a few copies of a part while storing it). */
export const ANSWER_PART_BYTES = 1 << 20;

const linkCodec = tokenCodec('answer-v1.', 300);
const cursorCodec = tokenCodec('cursor-v1.', 300);

export interface StoredRef {
  id: string;
  kind: StoredAnswerKind;
  expiresAt: number;
}

/** Collects text and writes it in parts of about ANSWER_PART_BYTES; `finish` makes it readable. */
export class AnswerWriter {
  private readonly chunks: string[] = [];
  private size = 0;
  private seq = 0;
  private bytes = 0;
  readonly ref: StoredRef;

  constructor(
    private readonly ctx: OpContext,
    kind: StoredAnswerKind,
    id = newId('sa_'),
  ) {
    this.ref = { id, kind, expiresAt: ctx.services.now() + ANSWER_TTL_MS };
  }

  /** Adds text; returns a promise only when a part is due (await it before adding more). */
  add(text: string): Promise<void> | undefined {
    this.chunks.push(text);
    this.size += text.length;
    return this.size >= ANSWER_PART_BYTES ? this.flush() : undefined;
  }

  private async flush(): Promise<void> {
    if (this.size === 0) return;
    const content = Buffer.from(this.chunks.join(''), 'utf8');
    this.chunks.length = 0;
    this.size = 0;
    this.bytes += content.length;
    await this.ctx.services.store.putStoredAnswerPart({ answer_id: this.ref.id, seq: ++this.seq, content, expires_at: this.ref.expiresAt });
  }

  async finish(): Promise<StoredRef> {
    await this.flush();
    const a: StoredAnswer = {
      workspace_id: this.ctx.caller!.workspaceId,
      id: this.ref.id,
      kind: this.ref.kind,
      parts: this.seq,
      byte_count: this.bytes,
      created_at: this.ctx.services.now(),
      expires_at: this.ref.expiresAt,
    };
    await this.ctx.services.store.finishStoredAnswer(a);
    return this.ref;
  }
}

/**
 * Stores `text` (a whole answer's JSON, already in memory) in parts, in one transaction; with `id`, once
 * (a stored one of that id is reused: a task's answer polled many times).
 */
export async function storeAnswerText(ctx: OpContext, text: string, id: string = newId('sa_')): Promise<StoredRef> {
  const { store, now } = ctx.services;
  const workspace = ctx.caller!.workspaceId;
  const known = await store.getStoredAnswer(workspace, id);
  if (known) return { id, kind: known.kind, expiresAt: known.expires_at };
  const bytes = Buffer.from(text, 'utf8');
  const parts: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += ANSWER_PART_BYTES) parts.push(bytes.subarray(at, at + ANSWER_PART_BYTES));
  const at = now();
  const ref: StoredRef = { id, kind: 'json', expiresAt: at + ANSWER_TTL_MS };
  await store.putStoredAnswer(
    { workspace_id: workspace, id, kind: 'json', parts: parts.length, byte_count: bytes.length, created_at: at, expires_at: ref.expiresAt },
    parts,
  );
  return ref;
}

/** `{base_url}/v1/exports/<token>` for a stored answer (docs/reference/models.md#stored-answers). */
export function answerLink(s: LinkSigning, workspaceId: string, ref: StoredRef): string {
  const token = linkCodec.sign(s.secrets.answer, { w: workspaceId, a: ref.id, e: Math.floor(ref.expiresAt / 1000) });
  return `${s.config.baseUrl}/v1/exports/${token}`;
}

const unknownLink = (what: string, field?: string) =>
  new ServiceError('unknown_link', `${what} is not a link this service gave, or it was altered`, field ? { field } : {});

function expired(what: string, at: number, field?: string): ServiceError {
  return new ServiceError(
    'answer_expired',
    `${what} expired at ${new Date(at).toISOString()} (answers are kept 24 hours)`,
    field ? { field } : {},
  );
}

interface Opened {
  workspaceId: string;
  answerId: string;
  expiresAt: number;
}

function openToken(payload: unknown): Opened | null {
  const p = payload as { w?: unknown; a?: unknown; e?: unknown } | null;
  if (!p || typeof p.w !== 'string' || typeof p.a !== 'string' || typeof p.e !== 'number') return null;
  return { workspaceId: p.w, answerId: p.a, expiresAt: p.e * 1000 };
}

/** The stored answer a link names: 404 unknown_link when forged or gone, 410 answer_expired after 24 hours. */
export async function openAnswerLink(ctx: OpContext, token: string): Promise<StoredAnswer> {
  const opened = openToken(linkCodec.open(ctx.services.secrets.answer, token));
  if (!opened) throw unknownLink('the link');
  if (ctx.services.now() >= opened.expiresAt) throw expired('the link', opened.expiresAt);
  const stored = await ctx.services.store.getStoredAnswer(opened.workspaceId, opened.answerId);
  if (!stored) throw unknownLink('the link');
  return stored;
}

/** An svc_page cursor: a position in a stored answer (a cursor is a position, not a format). */
export function cursorOf(s: LinkSigning, workspaceId: string, ref: StoredRef, offset: number): string {
  return cursorCodec.sign(s.secrets.answer, { w: workspaceId, a: ref.id, e: Math.floor(ref.expiresAt / 1000), o: offset });
}

/** The position a cursor names, for this caller's workspace (decision on docs/decisions/0010-expired-page-cursor.md: an expired cursor is 410). */
export function openCursor(ctx: OpContext, cursor: string): { ref: StoredRef; offset: number } {
  const payload = cursorCodec.open(ctx.services.secrets.answer, cursor) as { o?: unknown } | null;
  const opened = openToken(payload);
  if (!opened || !Number.isInteger(payload?.o) || (payload!.o as number) < 0) throw unknownLink('cursor', 'cursor');
  // Another workspace's cursor answers as unknown, like an altered one.
  if (opened.workspaceId !== ctx.caller!.workspaceId) throw unknownLink('cursor', 'cursor');
  if (ctx.services.now() >= opened.expiresAt) throw expired('cursor', opened.expiresAt, 'cursor');
  return { ref: { id: opened.answerId, kind: 'json', expiresAt: opened.expiresAt }, offset: payload!.o as number };
}

/** The parts of a stored answer as a byte stream, one part read from the store at a time. */
export function streamStoredAnswer(ctx: OpContext, a: StoredAnswer, signal?: AbortSignal): ReadableStream<Uint8Array> {
  let seq = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (signal?.aborted || seq >= a.parts) {
          controller.close();
          return;
        }
        const part = await ctx.services.store.getStoredAnswerPart(a.id, ++seq);
        if (!part) {
          // swept while being read (it expired meanwhile): end the stream short rather than hang
          controller.error(new Error(`stored answer ${a.id} lost part ${seq}`));
          return;
        }
        controller.enqueue(part);
      },
    },
    { highWaterMark: 1 },
  );
}

/**
 * Stored JSON answers kept parsed while an agent pages through them (svc_page slices the same answer
 * page after page: 10,000 cases with reasons are about a hundred pages of 60,000 characters). Weighed by
 * the answer's text length. One per running service.
 */
export class StoredAnswerCache {
  readonly parsed = new WeightedLru<string, Record<string, unknown>>(96 * 1024 * 1024);
}

/** A stored JSON answer parsed (from this process's cache when it read it lately), or null when gone. */
export async function readStoredAnswer(ctx: OpContext, ref: StoredRef): Promise<Record<string, unknown> | null> {
  const key = `${ctx.caller!.workspaceId}/${ref.id}`;
  const { parsed } = ctx.services.storedAnswers;
  const known = parsed.get(key);
  if (known) return known;
  const text = await readStoredText(ctx, ref);
  if (text === null) return null;
  const body = JSON.parse(text) as Record<string, unknown>;
  parsed.set(key, body, text.length);
  return body;
}

/** The whole text of a stored JSON answer, or null when gone. */
export async function readStoredText(ctx: OpContext, ref: StoredRef): Promise<string | null> {
  const a = await ctx.services.store.getStoredAnswer(ctx.caller!.workspaceId, ref.id);
  if (!a) return null;
  const parts: Buffer[] = [];
  for (let seq = 1; seq <= a.parts; seq++) {
    const part = await ctx.services.store.getStoredAnswerPart(a.id, seq);
    if (!part) return null;
    parts.push(Buffer.from(part.buffer, part.byteOffset, part.byteLength));
  }
  return Buffer.concat(parts).toString('utf8');
}
