// The strongest terms of a Model for the page's chart: each used column's logit contribution by bin,
// read straight from the Model's term tables (docs/design/engine.md#scoring), strongest column first.
import type { Model } from '../../engine/model.ts';

export interface TermBar {
  bin: number;
  /** The bin in words, without the column name ("9 to 16", "is basic", "is missing"). */
  label: string;
  /** Centred logit contribution (already times the calibration slope). */
  term: number;
  /** Training rows in the bin. */
  count: number;
}

export interface ColumnTerms {
  column: string;
  kind: 'numeric' | 'categorical';
  /** Count-weighted mean |term| over the training rows: how much the column moves a typical case. */
  strength: number;
  bars: TermBar[];
}

export function strongestTerms(model: Model, limit = 6): ColumnTerms[] {
  const out: Array<ColumnTerms & { j: number }> = [];
  model.columns.forEach((col, j) => {
    if (col.kind === 'unused') return;
    const terms = model.terms(j);
    const counts = model.counts(j);
    const bars: TermBar[] = [];
    let weighted = 0;
    let rows = 0;
    for (let b = 0; b < terms.length; b++) {
      if (!(counts[b] > 0)) continue; // a bin no training row fell in scores as the average case
      const text = model.describeBin(j, b).text;
      let label = text.startsWith(col.name + ' ') ? text.slice(col.name.length + 1) : text;
      if (col.kind === 'numeric' && b > 0 && label.startsWith('is ')) label = label.slice(3); // "is 5" -> "5"

      bars.push({ bin: b, label, term: terms[b], count: counts[b] });
      weighted += counts[b] * Math.abs(terms[b]);
      rows += counts[b];
    }
    out.push({ j, column: col.name, kind: col.kind, strength: rows > 0 ? weighted / rows : 0, bars });
  });
  // strongest first; ties by column order (docs/design/engine.md#determinism: every sort breaks ties by an explicit index)
  out.sort((a, b) => b.strength - a.strength || a.j - b.j);
  return out.slice(0, limit).map(({ j: _j, ...rest }) => rest);
}
