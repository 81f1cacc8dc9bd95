// Shows how the page's answer and the service's agree, and rows scored in the page with a model.
import type { Agreement } from '../core/compare.ts';
import type { ScoredRow } from '../core/score.ts';
import { el } from './dom.ts';

export function agreementView(a: Agreement): HTMLElement {
  const lines = a.questions.map((q) =>
    el(
      'li',
      {},
      `Question ${q.question}: state ${q.stateEqual ? 'same' : 'DIFFERENT'}, model_ref ${q.modelRefEqual ? 'same' : 'DIFFERENT'}, `,
      `${q.pEqual} of ${q.cases} cases with p equal bit for bit, ${q.detailsEqual} of ${q.cases} with the same level, choice, position and reasons.`,
      ...q.differences.map((d) =>
        el('div', { class: 'muted' }, `${d.entity_id}: page ${JSON.stringify(d.preview)} vs service ${JSON.stringify(d.service)}`),
      ),
    ),
  );
  return el(
    'div',
    { id: 'agreement-result', 'data-agree': String(a.agree) },
    el(
      'p',
      { class: a.agree ? 'agree' : 'disagree' },
      a.agree ? 'The page and the service agree: every case has the same p, bit for bit.' : 'The page and the service DISAGREE.',
    ),
    el('ul', {}, ...lines),
  );
}

/** `exact`: the engine's unrounded chances, shown on hover of each rounded one. */
export function scoredRowsView(rows: ScoredRow[], from: string, exact?: Float64Array): HTMLElement {
  const shown = rows.slice(0, 300);
  return el(
    'div',
    {},
    el(
      'p',
      { class: 'muted' },
      `${rows.length} rows scored in this page with ${from}${rows.length > shown.length ? `, first ${shown.length} shown` : ''}. Hover a chance for the engine's unrounded value.`,
    ),
    el(
      'div',
      { class: 'scroll' },
      el(
        'table',
        { id: 'scored-rows' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            el('th', {}, 'row'),
            el('th', {}, 'case'),
            el('th', {}, 'chance p'),
            el('th', {}, 'reasons (associations, not causes)'),
          ),
        ),
        el(
          'tbody',
          {},
          ...shown.map((s, i) =>
            el(
              'tr',
              {},
              el('td', {}, i + 1),
              el('td', {}, s.entity_id ?? ''),
              s.p === null
                ? el(
                    'td',
                    { class: 'num', title: 'the model cannot read this row (a missing column or a value it never saw)' },
                    'not scoreable',
                  )
                : el('td', { class: 'num', title: exact ? `unrounded ${String(exact[i])}` : undefined }, s.p.toFixed(6)),
              el('td', {}, s.reasons.map((r) => `${r.likelihood_direction === 'higher' ? '▲' : '▼'} ${r.range.text}`).join('; ')),
            ),
          ),
        ),
      ),
    ),
  );
}
