// The strongest terms as inline SVG: one small bar chart per column, a bar per bin, up when the bin
// raises the chance against the average case and down when it lowers it (values are logit terms).
import type { ColumnTerms } from '../core/terms.ts';
import { el, svg } from './dom.ts';

const W = 460;
const H = 190;
const PAD = { left: 70, right: 12, top: 26, bottom: 44 };

export function termsChart(columns: ColumnTerms[], pairs: number): HTMLElement {
  if (columns.length === 0) return el('p', { class: 'muted' }, 'The model uses no column.');
  const panels = columns.map(panel);
  const note = pairs > 0 ? ` The model also has ${pairs} pair term${pairs === 1 ? '' : 's'} (two columns together), not drawn.` : '';
  return el(
    'figure',
    { class: 'terms', id: 'terms-chart' },
    el('div', { class: 'panels' }, ...panels),
    el(
      'figcaption',
      {},
      `Each column's contribution to the log-odds by bin, strongest column first. Above the line: the bin raises the chance against the average case; below: lowers it. Hover a bar for its range.${note}`,
    ),
  );
}

function panel(c: ColumnTerms): SVGElement {
  const n = c.bars.length;
  const maxAbs = Math.max(0.05, ...c.bars.map((b) => Math.abs(b.term)));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
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
      const ly = H - PAD.bottom + 12;
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
    { viewBox: `0 0 ${W} ${H}`, class: 'panel', role: 'img', 'aria-label': `${c.column}: contribution by bin` },
    svg('text', { x: PAD.left, y: 16, class: 'panel-title' }, `${c.column}`),
    svg('text', { x: W - PAD.right, y: 16, class: 'panel-note', 'text-anchor': 'end' }, `typical move ${c.strength.toFixed(2)} logit`),
    svg('line', { x1: PAD.left, x2: W - PAD.right, y1: zeroY, y2: zeroY, class: 'zero' }),
    svg('text', { x: PAD.left - 6, y: (PAD.top + 4).toFixed(1), class: 'axis', 'text-anchor': 'end' }, `+${maxAbs.toFixed(2)}`),
    svg('text', { x: PAD.left - 6, y: (zeroY + 4).toFixed(1), class: 'axis', 'text-anchor': 'end' }, '0'),
    svg('text', { x: PAD.left - 6, y: (PAD.top + plotH).toFixed(1), class: 'axis', 'text-anchor': 'end' }, `-${maxAbs.toFixed(2)}`),
    ...bars,
    ...labels,
  );
}

function short(label: string): string {
  return label.length > 18 ? label.slice(0, 17) + '…' : label;
}
