// The ask reply as JSON text (spec 2.7): each signed Verdict is written as the exact canonical text
// its signature covers (wire.md) instead of being serialised a second time. Parsing the text gives
// the same value as JSON.stringify(body); only the spelling of a few numbers may differ (1e-05).
import { verdictJsonOf } from './verdicts.ts';
import { setOwn } from '../own.ts';

interface VerdictHolder {
  verdict: object;
  [k: string]: unknown;
}

/**
 * JSON.stringify of the body with every signed Verdict swapped for a placeholder string, then the
 * placeholders replaced by the signed texts in order. A placeholder carries a fresh random nonce, so
 * no caller data (written before the nonce existed) can spell one.
 */
export function askReplyJson(body: { answers?: Record<string, unknown> } & Record<string, unknown>): string {
  const nonce = crypto.randomUUID();
  const texts: string[] = [];
  const placeholder = (i: number) => `oq-verdict:${nonce}:${i}`;
  const answers: Record<string, unknown> = {};
  for (const [name, answer] of Object.entries(body.answers ?? {})) {
    const verdicts = (answer as { verdicts?: VerdictHolder[] }).verdicts;
    if (!Array.isArray(verdicts)) {
      setOwn(answers, name, answer);
      continue;
    }
    const swapped = verdicts.map((holder) => {
      const text = verdictJsonOf(holder.verdict);
      if (text === undefined) return holder;
      texts.push(text);
      return { ...holder, verdict: placeholder(texts.length - 1) };
    });
    setOwn(answers, name, { ...(answer as object), verdicts: swapped });
  }
  const json = JSON.stringify(body.answers === undefined ? body : { ...body, answers });
  if (texts.length === 0) return json;
  const parts: string[] = [];
  let from = 0;
  for (let i = 0; i < texts.length; i++) {
    const mark = JSON.stringify(placeholder(i));
    const at = json.indexOf(mark, from);
    if (at < 0) throw new Error('askReplyJson: a Verdict placeholder went missing');
    parts.push(json.slice(from, at), texts[i]);
    from = at + mark.length;
  }
  parts.push(json.slice(from));
  return parts.join('');
}
