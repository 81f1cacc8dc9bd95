// The ask reply as JSON text (docs/reference/ask.md#response): each signed Verdict is written as the exact canonical text
// its signature covers (docs/reference/verdicts.md), and cases shared with a Verdict as the text signed for them,
// instead of being serialised again. Parsing the text gives the same value as JSON.stringify(body);
// only the spelling of a few numbers may differ (1e-05).
import { verdictPiecesOf } from '../../core/verdicts.ts';
import { setOwn } from '../../schemas/record.ts';

interface VerdictHolder {
  verdict: object;
  [k: string]: unknown;
}

// Fields of an answer that may be a signed Verdict's own case array (answers.ts signedCases).
const CASE_FIELDS = ['cases', 'ranked'] as const;

/**
 * The reply in pieces: even ones from JSON.stringify of the body with every signed Verdict (and case
 * array shared with one) swapped for a placeholder string, odd ones the signed texts that replace the
 * placeholders, in order, each as the pieces it was signed in (verdictPiecesOf). A placeholder carries
 * a fresh random nonce, so no caller data (written before the nonce existed) can spell one.
 */
function replyPieces(body: { answers?: Record<string, unknown> } & Record<string, unknown>): Array<string | readonly string[]> {
  const nonce = crypto.randomUUID();
  const texts: Array<readonly string[]> = [];
  const placeholder = (i: number) => `oq-verdict:${nonce}:${i}`;
  const answers: Record<string, unknown> = {};
  for (const [name, answer] of Object.entries(body.answers ?? {})) {
    const a = answer as Record<string, unknown> & { verdicts?: VerdictHolder[] };
    if (!Array.isArray(a.verdicts)) {
      setOwn(answers, name, answer);
      continue;
    }
    const swap = (value: object): unknown => {
      const text = verdictPiecesOf(value);
      if (text === undefined) return value;
      texts.push(text);
      return placeholder(texts.length - 1);
    };
    const copy: Record<string, unknown> = { ...a };
    // in key order of the answer, so the placeholders are met in the order they were made
    for (const k of Object.keys(copy)) {
      if ((CASE_FIELDS as readonly string[]).includes(k) && Array.isArray(copy[k])) copy[k] = swap(copy[k] as object);
      else if (k === 'verdicts') copy[k] = a.verdicts.map((holder) => ({ ...holder, verdict: swap(holder.verdict) }));
    }
    setOwn(answers, name, copy);
  }
  const json = JSON.stringify(body.answers === undefined ? body : { ...body, answers });
  if (texts.length === 0) return [json];
  const pieces: Array<string | readonly string[]> = [];
  let from = 0;
  for (let i = 0; i < texts.length; i++) {
    const mark = JSON.stringify(placeholder(i));
    const at = json.indexOf(mark, from);
    if (at < 0) throw new Error('askReplyJson: a Verdict placeholder went missing');
    pieces.push(json.slice(from, at), texts[i]);
    from = at + mark.length;
  }
  pieces.push(json.slice(from));
  return pieces;
}

/** The reply as JSON text (what svc_ask stores for idempotency, pages over MCP, and replays). */
export function askReplyJson(body: { answers?: Record<string, unknown> } & Record<string, unknown>): string {
  return replyPieces(body)
    .map((p) => (typeof p === 'string' ? p : p.join('')))
    .join('');
}

/**
 * The reply as UTF-8 bytes, for REST: the same bytes as Buffer.from(askReplyJson(body)), written piece
 * by piece into one buffer. The signed texts (megabytes for 10,000 cases) are printable ASCII by
 * construction (canonical JSON), so their Latin-1 bytes are their UTF-8 bytes and are copied as they
 * are; the rest is UTF-8 encoded. That saves joining the whole text, measuring its UTF-8 length and
 * encoding it again when it is sent.
 */
export function askReplyBytes(body: { answers?: Record<string, unknown> } & Record<string, unknown>): Uint8Array<ArrayBuffer> {
  const pieces = replyPieces(body);
  let size = 0;
  for (const p of pieces) {
    if (typeof p === 'string') size += Buffer.byteLength(p, 'utf8');
    else for (let j = 0; j < p.length; j++) size += p[j].length;
  }
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const p of pieces) {
    if (typeof p === 'string') at += out.write(p, at, 'utf8');
    else for (let j = 0; j < p.length; j++) at += out.write(p[j], at, 'latin1');
  }
  if (at !== size) throw new Error('askReplyBytes: the reply is not the size it was measured');
  return out;
}
