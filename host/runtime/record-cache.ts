// The parsed tables of sealed datasets this process keeps (datasets/read.ts reads and fills it): sealed
// datasets never change, so a table is parsed once and kept until evicted, deleted or swept.
import { WeightedLru } from '../lib/lru.ts';
import type { RawTable } from '../table/types.ts';

/** Parsed tables of sealed datasets, weighed in cells; one per running service (and per task thread). */
export class RecordCache {
  readonly sealed: WeightedLru<string, StoredRecord & { workspaceId: string }>;

  constructor(budgetCells: number) {
    this.sealed = new WeightedLru(budgetCells);
  }

  /** Drops a deleted dataset's parsed rows from memory (ids are unique across workspaces). */
  forget(id: string): void {
    this.sealed.delete(id);
  }
}

export interface StoredRecord {
  table: RawTable;
  contentHash: string;
}
