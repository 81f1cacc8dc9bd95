// Feature column names (docs/reference/ask.md#shapes): stable, documented in SHAPE_FEATURES, never clashing with each other.

/** Hands out column names; a name already taken gets `_2`, `_3`, ... in the order names are asked for. */
export class NameBook {
  private readonly taken = new Set<string>();

  constructor(reserved: Iterable<string>) {
    for (const name of reserved) this.taken.add(name);
  }

  add(base: string): string {
    let name = base;
    for (let i = 2; this.taken.has(name); i++) name = `${base}_${i}`;
    this.taken.add(name);
    return name;
  }
}

/** A data value as part of a column name: lower case, runs of other characters as `_` (e.g. `Page View` -> `page_view`). */
export function slug(text: string): string {
  const s = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 60);
  return s === '' ? 'type' : s;
}

/** `n` snapshots of `every` (docs/reference/ask.md#shapes snapshot_every) as a name suffix: 3 x 1d -> `3d`, 3 x 6h -> `18h`, 2 x 1w -> `2w`. */
export function spanName(n: number, every: '1h' | '6h' | '1d' | '1w'): string {
  if (every === '6h') return `${6 * n}h`;
  return `${n}${every.slice(1)}`;
}
