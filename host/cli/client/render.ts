// An ask's reply as text a person reads (docs/reference/ask.md#answer): per question its state, and for an
// answered one a table of cases (case, chance, level or choice, top reasons); a refusal or a not_yet in
// plain words with what to do next.
import type { Answer, AskReply, CaseResult, Reason } from '../../client/client.ts';

const REASON_WORDS: Record<string, string> = {
  no_finding_cleared: 'nothing in the record held up on rows the model did not learn from',
  too_few_predictors: 'too few usable columns to learn from',
  option_not_in_pattern: 'the choice column makes no difference to the outcome',
  too_few_labeled_rows: 'too few rows with a known outcome',
  too_few_positives: 'too few rows where the outcome happened',
  no_positives: 'no row where the outcome happened',
  too_few_to_hold_out: 'too few rows to hold some out and test on them',
};

export function renderReply(reply: AskReply): string {
  const parts: string[] = [];
  for (const [name, answer] of Object.entries(reply.answers ?? {})) parts.push(renderAnswer(name, answer));
  const tail: string[] = [];
  if (reply.fits_run !== undefined) tail.push(`fits run: ${reply.fits_run}`);
  if (reply.billable_decisions !== undefined) tail.push(`billed decisions: ${reply.billable_decisions}`);
  if (tail.length > 0) parts.push(tail.join(', '));
  return parts.join('\n\n') + '\n';
}

export function renderAnswer(name: string, a: Answer): string {
  const reasons = (a.reasons ?? []).map((r) => REASON_WORDS[r] ?? r);
  if (a.state === 'refused') {
    return [
      `${name} (${a.type}): REFUSED. ${capital(reasons.join('; ') || 'no pattern held')}.`,
      'This is an answer, not an error: asking the same again gives the same. Add columns or change the question.',
    ].join('\n');
  }
  if (a.state === 'not_yet') {
    const needs = a.needs ? Object.entries(a.needs).filter(([k]) => k !== 'countdown') : [];
    const have: Record<string, number | undefined> = { ...a.have };
    const need = needs.map(([k, v]) => `${k.replace(/_/g, ' ')}: ${v}${have[k] !== undefined ? ` (have ${have[k]})` : ''}`);
    return [
      `${name} (${a.type}): NOT YET. ${capital(reasons.join('; ') || 'too little to test anything')}.`,
      need.length > 0 ? `Needs ${need.join(', ')}. Add rows, then ask again.` : 'Add rows, then ask again.',
    ].join('\n');
  }
  const q = a.quality ?? {};
  const head = [`${name} (${a.type}): answered`];
  if (typeof q.auc === 'number') head.push(`AUC ${q.auc.toFixed(3)} on ${q.held_out_rows ?? '?'} held-out rows`);
  if (a.model_ref) head.push(`model ${a.model_ref}`);
  const cases: CaseResult[] = a.ranked ?? a.cases ?? [];
  const rows = cases.map((c) => caseRow(a, c));
  const header = [
    a.type === 'rank' ? 'rank' : '',
    'case',
    'chance',
    a.type === 'score' ? 'level' : a.type === 'choice' ? 'best' : '',
    'top reasons',
  ];
  const lines = [head.join(', '), table(header, rows)];
  if (a.type === 'rank' && a.ranked_total !== undefined) lines.push(`(${cases.length} of ${a.ranked_total} ranked cases)`);
  if (cases.length === 0) lines.push('(no cases)');
  return lines.join('\n');
}

function caseRow(a: Answer, c: CaseResult): string[] {
  if (c.state === 'not_scoreable') {
    const why = Object.entries(c.not_scoreable ?? {})
      .filter(([k]) => k !== 'row')
      .map(([k, v]) => `${k.replace(/_/g, ' ')}${Array.isArray(v) ? ` ${v.join(', ')}` : ''}`)
      .join('; ');
    return [a.type === 'rank' ? '' : '', c.entity_id, '-', '', `not scoreable: ${why}`];
  }
  const chance =
    typeof c.p_display === 'string'
      ? c.p_display
      : c.p_display && typeof c.p_display === 'object'
        ? Object.entries(c.p_display)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')
        : typeof c.p === 'number'
          ? `${Math.round(c.p * 100)}%`
          : '-';
  const extra = a.type === 'score' ? (c.level ?? '') : a.type === 'choice' ? (c.choice ?? '') : '';
  return [
    c.position !== undefined ? String(c.position) : '',
    c.entity_id,
    chance,
    extra,
    (c.reasons ?? []).slice(0, 2).map(reasonText).join('; '),
  ];
}

function reasonText(r: Reason): string {
  const dir = r.likelihood_direction === 'higher' ? '↑' : r.likelihood_direction === 'lower' ? '↓' : '';
  const value = r.value === undefined || r.value === null ? '' : `=${String(r.value)}`;
  return `${r.feature_label}${value} ${dir}${r.strength === 'strong' ? ' strong' : ''}`.trim();
}

/** Columns padded to their widest cell; empty columns left out. */
function table(header: string[], rows: string[][]): string {
  const keep = header.map((h, i) => h !== '' || rows.some((r) => r[i] !== ''));
  const cols = header.map((_, i) => i).filter((i) => keep[i]);
  const all = [header, ...rows];
  const width = cols.map((i) => Math.max(...all.map((r) => [...(r[i] ?? '')].length)));
  const line = (r: string[]) =>
    cols
      .map((i, k) => (k === cols.length - 1 ? (r[i] ?? '') : (r[i] ?? '').padEnd(width[k])))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].map((l) => `  ${l}`).join('\n');
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
