// The column names an ask gives, checked against the record's, with the fix a person would want: the
// columns there are and the closest name to the one that is not (`churn` -> `churned`).

/** Levenshtein distance between a and b, case-insensitive (names differ by a letter or two, or by case). */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[y.length];
}

/**
 * The candidate `name` most likely meant: the same name in another case, one it is a prefix or suffix of
 * (`churn` of `churned`), or one within a third of its length in edits; undefined when none is close.
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const l = c.toLowerCase();
    const score = l === lower ? 0 : l.startsWith(lower) || lower.startsWith(l) || l.endsWith(lower) ? 1 : 1 + distance(name, c);
    if (score < bestScore) [best, bestScore] = [c, score];
  }
  if (best === undefined) return undefined;
  const limit = 1 + Math.max(1, Math.floor(name.length / 3));
  return bestScore <= limit ? best : undefined;
}

/** "columns: a, b, c" (at most 30), for a detail that names what the record has. */
export function listColumns(columns: readonly string[]): string {
  return `${columns.slice(0, 30).join(', ')}${columns.length > 30 ? `, ... (${columns.length} in all)` : ''}`;
}

/** "; did you mean "churned"?" or nothing. */
export function didYouMean(name: string, candidates: readonly string[]): string {
  const near = closestName(name, candidates);
  return near === undefined ? '' : `; did you mean ${JSON.stringify(near)}?`;
}
