// An unanswered answer in one plain sentence (`explanation`, docs/decisions/0065-answer-explanation.md): what
// the page says beside a refusal or a not_yet, with the numbers the answer already carries (the held-out AUC
// and its interval, the rows and positives still needed), so an API caller reads the same words.

interface Quality {
  auc?: number | null;
  auc_interval?: [number, number] | null;
  held_out_rows?: number;
}

interface Unanswered {
  state: unknown;
  reasons?: unknown;
  quality?: unknown;
  needs?: { labeled_rows?: number | null; positives?: number; columns?: number };
  have?: { labeled_rows?: number; positives?: number };
}

const num = (x: number) => String(Math.round(x * 100) / 100);
const count = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** A choice answer's quality is per option; the first option's stands for the question's (as on the page). */
function qualityOf(q: unknown): Quality | null {
  if (q === null || typeof q !== 'object') return null;
  const o = q as Record<string, unknown>;
  if ('auc' in o) return o as Quality;
  const first = Object.values(o)[0];
  return first && typeof first === 'object' ? (first as Quality) : null;
}

/** The sentence for a refused or not_yet answer; undefined for an answered one. */
export function explanationOf(a: Unanswered): string | undefined {
  const reasons = Array.isArray(a.reasons) ? (a.reasons as string[]) : [];
  if (a.state === 'refused') {
    if (reasons.includes('too_few_predictors')) {
      const more = a.needs?.columns;
      return (
        'Too few columns carry any signal about the outcome to check a pattern, so the service refuses rather than guesses' +
        `${typeof more === 'number' && more > 0 ? `; it needs ${count(more, 'more such column', 'more such columns')}` : ''}. ` +
        'Retrying the same question cannot change this; add columns that may explain the outcome.'
      );
    }
    const q = qualityOf(a.quality);
    const auc =
      q && typeof q.auc === 'number'
        ? ` (held-out AUC ${num(q.auc)}${q.auc_interval ? `, 95% interval ${num(q.auc_interval[0])} to ${num(q.auc_interval[1])}` : ''}; 0.5 is a coin toss)`
        : '';
    return (
      `No pattern held on the held-out rows${auc}, so the service refuses rather than guesses. ` +
      'Retrying the same question cannot change this; add columns or rows, or change the question.'
    );
  }
  if (a.state === 'not_yet') {
    const needs: string[] = [];
    const rows = a.needs?.labeled_rows;
    const positives = a.needs?.positives;
    if (typeof rows === 'number' && rows > 0) needs.push(count(rows, 'more labeled row', 'more labeled rows'));
    if (typeof positives === 'number' && positives > 0) needs.push(count(positives, 'more yes row', 'more yes rows'));
    const have =
      a.have && typeof a.have.labeled_rows === 'number' ? ` (it has ${count(a.have.labeled_rows, 'labeled row', 'labeled rows')}` : '';
    const havePos = have && typeof a.have?.positives === 'number' ? `, ${count(a.have.positives, 'yes', 'yes')})` : have ? ')' : '';
    return (
      `Too few labeled rows to check a model on rows it was not fitted on${have}${havePos}, so there is no answer yet` +
      `${needs.length > 0 ? `; it needs about ${needs.join(' and ')}` : ''}. Ask again when more outcomes are known.`
    );
  }
  return undefined;
}

const percent = (p: number) => (p < 0.005 ? 'under 1%' : p >= 0.995 ? 'over 99%' : `${Math.round(p * 100)}%`);

/**
 * Why an answered case has fewer reasons than it might (`reasons_note`, docs/decisions/0075-reasons-note.md):
 * none at all, because no column moved its odds by a quarter against the average case; or a column left out
 * because its effect holds over too narrow a span of values (docs/decisions/0074-effect-spans.md).
 * Undefined when there is nothing to explain.
 */
export function reasonsNoteOf(
  s: { p: number; reasons: readonly unknown[]; narrow: readonly string[] },
  baseRate: number,
): string | undefined {
  const n = s.narrow.length;
  const narrow =
    n === 0
      ? ''
      : `${s.narrow.join(', ')} ${n === 1 ? 'moves' : 'move'} this chance only over a span of values too narrow to act on, ` +
        `so ${n === 1 ? 'it is' : 'they are'} not given as a reason.`;
  if (s.reasons.length > 0) return n > 0 ? narrow : undefined;
  const wide = n > 0 ? ' over a span of values wide enough to act on' : '';
  return (
    `No column moved this case's odds by a quarter or more against the average case${wide}, so no reason is given: ` +
    `its chance (${percent(s.p)}) is near the record's base rate (${percent(baseRate)}) or the sum of small effects.` +
    (n > 0 ? ` ${narrow}` : '')
  );
}
