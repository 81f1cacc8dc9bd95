// The raw table every record source is read into before typing (docs/design/architecture.md#data-flow-2).

/** One cell as read: CSV gives strings; inline rows may give numbers, booleans or null. */
export type Cell = string | number | boolean | null;

/** A record as read, column-major: `data[c][r]` is column `columns[c]`, row `r`. */
export interface RawTable {
  columns: string[];
  data: Cell[][];
  rowCount: number;
}
