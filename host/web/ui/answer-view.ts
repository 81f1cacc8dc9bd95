// Renders one answer (the service's shape, docs/reference/ask.md#answer): state first, then quality, then the cases
// with their chances, levels or choices, and reasons with the range of the bin each value fell in.
import { el, fmt } from './dom.ts';
import { chancesChart } from './chart.ts';

type Obj = Record<string, any>;
const SHOWN = 300;

/** `middle` (the terms chart) goes between the quality and the cases. */
export function answerView(answer: Obj, source: 'preview' | 'service', middle?: Node): HTMLElement {
  const state = String(answer.state);
  const fit =
    answer.cache === 'hit'
      ? el('abbr', { title: 'The fit for this record and question was made before and reused: nothing was refitted.' }, 'fit reused')
      : el('abbr', { title: 'The model was fitted for this question now.' }, 'fitted now');
  const head = el(
    'div',
    { class: 'answer-head' },
    el('span', { class: `state state-${state}`, 'data-state': state }, state),
    el('span', { class: 'muted' }, ` ${answer.type} · `, fit, ' · '),
    el('code', { class: 'model-ref' }, answer.model_ref ?? Object.values(answer.model_refs ?? {}).join(', ') ?? ''),
  );
  const parts: Node[] = [head];
  // docs/reference/ask.md#questions: which column was learned and which of its values were read as yes
  if (answer.outcome) {
    parts.push(
      el(
        'p',
        { class: 'outcome-line', id: 'outcome-line' },
        'Outcome: ',
        el('code', {}, `${answer.outcome.column} = ${(answer.outcome.positive_values as string[]).join(' or ')}`),
        el('span', { class: 'muted' }, ' (the rows read as yes; every other value is no)'),
      ),
    );
  }
  if (state !== 'answered') parts.push(unanswered(answer));
  const quality = answer.quality ? (answer.quality.auc !== undefined ? answer.quality : Object.values(answer.quality)[0]) : null;
  if (quality) parts.push(qualityView(quality));
  const rows: Obj[] = answer.cases ?? answer.ranked ?? [];
  const chances = rows.map((c) => c.p).filter((p): p is number => typeof p === 'number');
  if (chances.length > 0) parts.push(chancesChart(chances, (quality as Obj | null)?.base_rate ?? null));
  if (middle) parts.push(middle);
  if (rows.length > 0) parts.push(casesTable(rows, answer, source));
  return el('div', { class: 'answer' }, ...parts);
}

function unanswered(a: Obj): HTMLElement {
  const reasons = (a.reasons ?? []).join(', ');
  const needs = a.needs
    ? ` Needs: ${Object.entries(a.needs)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}.`
    : '';
  const why =
    a.state === 'refused'
      ? 'No pattern held on the held-out rows, so the service refuses rather than guesses. Retrying the same question cannot change this.'
      : 'Too few labeled rows to check a model.';
  return el('p', { class: 'why' }, `${why} Reasons: ${reasons || '–'}.${needs}${a.detail ? ' ' + a.detail : ''}`);
}

function qualityView(q: Obj): HTMLElement {
  const interval = q.auc_interval ? ` (95% interval ${fmt(q.auc_interval[0])} to ${fmt(q.auc_interval[1])})` : '';
  const excluded = (q.excluded_columns ?? []).map((e: Obj) => `${e.column} (${e.why})`).join(', ');
  return el(
    'dl',
    { class: 'quality' },
    el(
      'dt',
      {},
      el(
        'abbr',
        { title: 'How well the chances order the held-out rows: 0.5 is a coin toss, 1 is perfect. Held-out rows were not used to fit.' },
        'Held-out AUC',
      ),
    ),
    el('dd', { id: 'quality-auc' }, `${fmt(q.auc)}${interval}`),
    el('dt', {}, 'Validation'),
    el(
      'dd',
      {},
      q.folds > 1
        ? `${q.validation_scheme}: each of ${q.held_out_rows} labeled rows (${q.held_out_positives} yes) held out once, ${q.folds} folds`
        : `${q.validation_scheme}: ${q.held_out_rows} held-out rows (${q.held_out_positives} yes), ${q.training_rows} training rows`,
    ),
    el('dt', {}, 'Base rate'),
    el('dd', {}, fmt(q.base_rate)),
    el(
      'dt',
      {},
      el(
        'abbr',
        {
          title:
            'How much more often the outcome happens among the tenth of held-out cases with the highest chance than among all of them.',
        },
        'Top-decile lift',
      ),
    ),
    el('dd', {}, `${fmt(q.top_decile_lift, 2)} (top fifth ${fmt(q.realised_lift, 2)})`),
    el(
      'dt',
      {},
      el(
        'abbr',
        {
          title:
            'Two measures of how close the chances are to what happened on held-out rows (lower is better): the mean squared gap (Brier) and the mean surprise (log loss).',
        },
        'Brier / log loss',
      ),
    ),
    el('dd', {}, `${fmt(q.brier)} / ${fmt(q.log_loss)}`),
    el('dt', {}, 'Left out'),
    el('dd', {}, excluded || 'none'),
  );
}

function pText(p: unknown): string {
  if (typeof p === 'number') return p.toFixed(6);
  return Object.entries(p as Obj)
    .map(([o, v]) => `${o} ${(v as number).toFixed(3)}`)
    .join(' · ');
}

function detailOf(c: Obj): string {
  if (c.level !== undefined) return c.level;
  if (c.choice !== undefined) return `${c.choice} (most likely ${c.most_likely}, least ${c.least_likely})`;
  if (c.position !== undefined) return `#${c.position}`;
  return '';
}

function reasonsCell(reasons: Obj[]): HTMLElement {
  if (reasons.length === 0) return el('td', { class: 'muted' }, 'no column moved this case much');
  return el(
    'td',
    {},
    el(
      'ul',
      { class: 'reasons' },
      ...reasons.map((r) =>
        el(
          'li',
          { class: r.likelihood_direction },
          el('span', { class: 'dir' }, r.likelihood_direction === 'higher' ? '▲' : '▼'),
          ` ${r.range?.text ?? r.feature_label}`,
          el('span', { class: 'muted' }, ` · ${r.strength}`),
        ),
      ),
    ),
  );
}

function casesTable(rows: Obj[], answer: Obj, source: string): HTMLElement {
  const body = el('tbody', {});
  const render = (limit: number) => {
    body.replaceChildren(
      ...rows.slice(0, limit).map((c) =>
        el(
          'tr',
          {},
          el('td', {}, c.entity_id),
          // the chance as the API's p_display (whole percent), the exact p on hover
          el('td', { class: 'num', title: `p = ${pText(c.p)}` }, typeof c.p_display === 'string' ? c.p_display : pText(c.p)),
          el('td', {}, detailOf(c)),
          reasonsCell(c.reasons ?? []),
        ),
      ),
    );
  };
  render(SHOWN);
  const total = answer.ranked_total !== undefined ? ` of ${answer.ranked_total} ranked` : '';
  const more = rows.length > SHOWN ? el('button', { type: 'button', class: 'link' }, `Show all ${rows.length} cases`) : null;
  more?.addEventListener('click', () => {
    render(rows.length);
    more.remove();
  });
  const detail = ({ score: 'level', rank: 'position', choice: 'choice' } as Obj)[answer.type] ?? '';
  const head = el(
    'tr',
    {},
    el('th', {}, 'case'),
    el('th', {}, 'chance'),
    el('th', {}, detail),
    el('th', {}, 'reasons (associations, not causes)'),
  );
  return el(
    'div',
    { class: 'cases' },
    el('h3', {}, 'Cases'),
    el(
      'p',
      { class: 'muted' },
      `${rows.length} case${rows.length === 1 ? '' : 's'}${total} from the ${source}${rows.length > SHOWN ? `, first ${SHOWN} shown` : ''}.`,
    ),
    el('div', { class: 'scroll' }, el('table', { id: 'cases-table' }, el('thead', {}, head), body)),
    more,
  );
}
