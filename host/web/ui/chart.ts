// The strongest terms as inline SVG: one small bar chart per column, a bar per bin, up when the bin
// raises the chance against the average case and down when it lowers it (values are logit terms).
import type { ColumnTerms } from '../core/terms.ts';
import { el, svg } from './dom.ts';

const W = 460;
const H = 190;
// Room below the plot for tick labels turned 30 degrees: 22 characters of 11 px text need about 60 px.
const PAD = { left: 92, right: 12, top: 26, bottom: 66 };
const H_TOTAL = H + PAD.bottom - 44;

/** A refused answer's panels share one scale that reaches at least this (doubled or halved odds). */
const REFUSED_SCALE = Math.log(2);

/**
 * `pairs`: the model's terms of two columns together; `triples`: of three (assembly/pairs.ts tree terms).
 * `refused`: the question was refused, so the terms did not hold on held-out rows: every panel is drawn grey
 * on one shared scale of at least +-0.69, so a column that moves the odds by a tenth looks as small as it is
 * instead of filling a panel scaled to itself.
 */
export function termsChart(columns: ColumnTerms[], pairs: number, triples = 0, trees = 0, opts: { refused?: boolean } = {}): HTMLElement {
  if (columns.length === 0) return el('p', { class: 'muted' }, 'The model uses no column.');
  const shared = opts.refused ? Math.max(REFUSED_SCALE, ...columns.flatMap((c) => c.bars.map((b) => Math.abs(b.term)))) : undefined;
  const panels = columns.map((c) => panel(c, shared));
  const counts = [
    pairs > 0 ? `${pairs} pair term${pairs === 1 ? '' : 's'} (two columns together)` : '',
    triples > 0 ? `${triples} term${triples === 1 ? '' : 's'} of three columns together` : '',
    trees > 0
      ? `${trees} small tree${trees === 1 ? '' : 's'} on what the terms leave (up to four columns each; a case's reasons include each tree's exact share per column)`
      : '',
  ].filter((t) => t !== '');
  const note = counts.length > 0 ? ` The model also has ${counts.join(' and ')}, not drawn.` : '';
  const refused = opts.refused
    ? `Refused: these terms did not hold on the held-out rows, so they are drawn grey, every column on one scale (±${shared!.toFixed(2)}), and are no reason to act. `
    : '';
  return el(
    'figure',
    { class: opts.refused ? 'terms refused' : 'terms', id: 'terms-chart', 'data-scale': shared === undefined ? 'own' : shared.toFixed(3) },
    el('div', { class: 'panels' }, ...panels),
    el(
      'figcaption',
      {},
      `${refused}Each column's contribution by bin, strongest column first, on the log-odds scale (0 is the average case; +0.69 doubles the odds, -0.69 halves them). Above the line: the bin raises the chance; below: lowers it. Hover a bar for its range.${note}`,
    ),
  );
}

/** One column's panel, scaled to its own largest term or to `shared` (a refused answer's one scale). */
function panel(c: ColumnTerms, shared?: number): SVGElement {
  const n = c.bars.length;
  const maxAbs = shared ?? Math.max(0.05, ...c.bars.map((b) => Math.abs(b.term)));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - 44;
  const zeroY = PAD.top + plotH / 2;
  const y = (t: number) => zeroY - (t / maxAbs) * (plotH / 2);
  const step = plotW / Math.max(1, n);
  const barW = Math.max(1, step * (n > 40 ? 1 : 0.8));
  const every = Math.max(1, Math.ceil(n / (c.kind === 'categorical' ? 12 : 6)));
  const bars: SVGElement[] = [];
  const labels: SVGElement[] = [];
  c.bars.forEach((b, i) => {
    const x = PAD.left + i * step + (step - barW) / 2;
    const top = Math.min(y(b.term), zeroY);
    const odds = Math.exp(b.term);
    bars.push(
      svg(
        'rect',
        {
          x: x.toFixed(2),
          y: top.toFixed(2),
          width: barW.toFixed(2),
          height: Math.max(0.5, Math.abs(y(b.term) - zeroY)).toFixed(2),
          class: b.term >= 0 ? 'up' : 'down',
        },
        svg(
          'title',
          {},
          `${c.column} ${b.label}: odds x${odds.toFixed(2)} (logit ${b.term >= 0 ? '+' : ''}${b.term.toFixed(3)}), ${b.count} training rows`,
        ),
      ),
    );
    if (i % every === 0 || i === n - 1) {
      const lx = PAD.left + i * step + step / 2;
      const ly = PAD.top + plotH + 12;
      labels.push(
        svg(
          'text',
          { x: lx.toFixed(1), y: ly, class: 'tick', 'text-anchor': 'end', transform: `rotate(-30 ${lx.toFixed(1)} ${ly})` },
          short(b.label),
        ),
      );
    }
  });
  return svg(
    'svg',
    { viewBox: `0 0 ${W} ${H_TOTAL}`, class: 'panel', role: 'img', 'aria-label': `${c.column}: contribution by bin` },
    svg('text', { x: PAD.left, y: 16, class: 'panel-title' }, `${c.column}`),
    svg(
      'text',
      { x: W - PAD.right, y: 16, class: 'panel-note', 'text-anchor': 'end' },
      `typical move: odds x${Math.exp(c.strength).toFixed(2)}`,
      svg('title', {}, `A typical case's bin moves the log-odds by ${c.strength.toFixed(2)} from the average case.`),
    ),
    svg('line', { x1: PAD.left, x2: W - PAD.right, y1: zeroY, y2: zeroY, class: 'zero' }),
    svg('text', { x: PAD.left - 6, y: (PAD.top + 4).toFixed(1), class: 'axis', 'text-anchor': 'end' }, `+${maxAbs.toFixed(2)}`),
    svg('text', { x: PAD.left - 6, y: (zeroY + 4).toFixed(1), class: 'axis', 'text-anchor': 'end' }, '0'),
    svg('text', { x: PAD.left - 6, y: (PAD.top + plotH).toFixed(1), class: 'axis', 'text-anchor': 'end' }, `-${maxAbs.toFixed(2)}`),
    ...bars,
    ...labels,
  );
}

function short(label: string): string {
  return label.length > 22 ? label.slice(0, 21) + '…' : label;
}

const CW = 460;
const CH = 150;
const CPAD = { left: 40, right: 12, top: 22, bottom: 30 };
const BINS = 20;

/**
 * The chances of the answered cases as a histogram of 20 bins from 0 to 1, with the base rate (the share
 * of yes among the labeled rows) as a line: how spread the chances are, and on which side of it.
 */
export function chancesChart(ps: readonly number[], baseRate: number | null): HTMLElement {
  const counts = new Array<number>(BINS).fill(0);
  for (const p of ps) counts[Math.min(BINS - 1, Math.floor(p * BINS))]++;
  const top = Math.max(1, ...counts);
  const plotW = CW - CPAD.left - CPAD.right;
  const plotH = CH - CPAD.top - CPAD.bottom;
  const x = (p: number) => CPAD.left + p * plotW;
  const bars = counts.map((n, i) =>
    svg(
      'rect',
      {
        x: (x(i / BINS) + 1).toFixed(1),
        y: (CPAD.top + plotH - (n / top) * plotH).toFixed(1),
        width: (plotW / BINS - 2).toFixed(1),
        height: ((n / top) * plotH).toFixed(1),
        class: 'hist',
      },
      svg('title', {}, `${n} case${n === 1 ? '' : 's'} with a chance from ${(i / BINS).toFixed(2)} to ${((i + 1) / BINS).toFixed(2)}`),
    ),
  );
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((t) =>
    svg('text', { x: x(t).toFixed(1), y: CH - CPAD.bottom + 14, class: 'tick', 'text-anchor': 'middle' }, t.toFixed(2)),
  );
  const base =
    baseRate === null
      ? []
      : [
          svg('line', { x1: x(baseRate).toFixed(1), x2: x(baseRate).toFixed(1), y1: CPAD.top - 6, y2: CPAD.top + plotH, class: 'base' }),
          svg('text', { x: (x(baseRate) + 4).toFixed(1), y: CPAD.top - 8, class: 'panel-note' }, `base rate ${baseRate.toFixed(3)}`),
        ];
  return el(
    'figure',
    { class: 'chances', id: 'chances-chart' },
    svg(
      'svg',
      { viewBox: `0 0 ${CW} ${CH}`, class: 'panel', role: 'img', 'aria-label': 'How many cases got each chance' },
      svg('line', { x1: CPAD.left, x2: CW - CPAD.right, y1: CPAD.top + plotH, y2: CPAD.top + plotH, class: 'zero' }),
      svg('text', { x: CPAD.left - 6, y: CPAD.top + 4, class: 'axis', 'text-anchor': 'end' }, String(top)),
      ...bars,
      ...ticks,
      ...base,
    ),
    el(
      'figcaption',
      {},
      `The chance p of each of the ${ps.length} case${ps.length === 1 ? '' : 's'} answered, in bins of 0.05; the line is the base rate, the share of yes among the labeled rows.`,
    ),
  );
}
