// What each question's fit is fitted on and its cases are scored from: the record itself, or the
// record read through its `shape` (docs/reference/ask.md#shapes). A shaped view names its own entity/time columns and,
// for events and panel windows, the rows read at as_of that the cases are scored from.
import { ServiceError } from '../errors.ts';
import { canonicalJson } from '../signing/index.ts';
import { applyShape, type ShapedRecord } from '../table/shapes/index.ts';
import type { RawTable } from '../table/types.ts';
import type { AskRequest } from '../schemas/index.ts';
import { selectCases, type CaseSet } from './cases.ts';
import { tableViewOf } from './plan.ts';

export interface RecordView {
  /** The table the fit learns from. */
  table: RawTable;
  entityColumn: string;
  timeColumn?: string;
  /** docs/decisions/0001-group-column.md group_column (tables only, when it is not the entity column): rows held out whole by its value. */
  groupColumn?: string;
  /** A snapshots grid's reading time: left out of the features (ShapedRecord.readingTimeColumn). */
  readingTimeColumn?: string;
  /** Part of the fit key when a shape made the table (the same bytes read otherwise are another fit). */
  shapeKey?: string;
  /** The cases this ask answers about, from this view. */
  cases: CaseSet;
  shaped?: ShapedRecord;
}

// A cached record (sample, sealed dataset) is the same table object ask after ask: its shaped
// readings are kept with it; an inline record is a new object each time, so nothing is kept.
const shapedByTable = new WeakMap<RawTable, Map<string, ShapedRecord>>();

function shapedOnce(table: RawTable, key: string, read: () => ShapedRecord): ShapedRecord {
  let per = shapedByTable.get(table);
  if (!per) {
    per = new Map();
    shapedByTable.set(table, per);
  }
  let shaped = per.get(key);
  if (!shaped) {
    shaped = read();
    per.set(key, shaped);
  }
  return shaped;
}

/** Traces (prior failure rates) and series read the question's outcome: one view per outcome there. */
const OUTCOME_DEPENDENT = new Set(['traces', 'series']);

export class RecordViews {
  private readonly views = new Map<string, RecordView>();

  constructor(
    private readonly record: RawTable,
    private readonly ask: AskRequest,
    /** docs/reference/map.md#snapshots snapshots table form: the snapshot table read from shape.snapshots, and its content hash. */
    private readonly snapshots?: { table: RawTable; contentHash: string },
  ) {}

  /** The view for a question about `outcomeColumn` (checked against a shape's own outcome). */
  viewFor(outcomeColumn: string, positiveValues: string[] | undefined, field: string): RecordView {
    const shape = this.ask.shape;
    if (!shape || shape.kind === 'table') {
      // docs/reference/ask.md#cases: open cases of a table are its blank-outcome rows, so they depend on the outcome
      const open = this.ask.cases?.open === true;
      return this.cached(open ? canonicalJson(['open', outcomeColumn]) : '', () =>
        tableViewOf(this.record, this.ask, open ? { outcomeColumn } : undefined),
      );
    }
    // docs/reference/map.md#snapshots: a snapshot table carries its outcome (the question names it), so its open cases depend on it
    const tableForm = shape.kind === 'snapshots' && shape.snapshots !== undefined;
    const key = OUTCOME_DEPENDENT.has(shape.kind)
      ? canonicalJson([outcomeColumn, positiveValues ?? null])
      : tableForm && this.ask.cases?.open === true
        ? canonicalJson(['open', outcomeColumn])
        : '';
    // the snapshot table's bytes are part of what was read (a refetched fetch_url may differ)
    const snapHash = this.snapshots?.contentHash ?? null;
    const view = this.cached(key, () => {
      const shaped = shapedOnce(
        this.record,
        canonicalJson({ shape, e: this.ask.entity_column, t: this.ask.time_column, key, snapHash }),
        () =>
          applyShape(this.record, shape, {
            entityColumn: this.ask.entity_column,
            timeColumn: this.ask.time_column!,
            question: { field, outcomeColumn, positiveValues },
            ...(this.snapshots ? { snapshots: this.snapshots.table } : {}),
          }),
      );
      // Cases are scored from the rows read at as_of when the shape has them (events, panel windows).
      const scoreFrom = shaped.current ?? shaped.table;
      return {
        table: shaped.table,
        entityColumn: shaped.entityColumn,
        timeColumn: shaped.timeColumn,
        ...(shaped.readingTimeColumn !== undefined ? { readingTimeColumn: shaped.readingTimeColumn } : {}),
        shapeKey: canonicalJson({
          shape,
          time_column: this.ask.time_column,
          outcome: key || null,
          ...(snapHash ? { snapshots: snapHash } : {}),
        }),
        cases: selectCases(
          scoreFrom,
          this.ask.cases,
          shaped.entityColumn,
          shaped.current ? undefined : shaped.timeColumn,
          // docs/reference/map.md#snapshots: on a snapshots grid the open cases are the readings at as_of; a snapshot table's
          // are its snapshots whose outcome (the question's column) is blank
          {
            outcomeColumn: shaped.outcomeColumn || outcomeColumn,
            ...(shape.kind === 'snapshots' && !tableForm ? { at: { column: this.ask.time_column!, value: shaped.asOf } } : {}),
          },
        ),
        shaped,
      };
    });
    const own = view.shaped!.outcomeColumn;
    if (own !== '' && own !== outcomeColumn) {
      throw new ServiceError(
        'invalid_request',
        `${field}.outcome_column: with shape kind ${shape.kind} this record's outcome column is ${own}`,
        {
          field: `${field}.outcome_column`,
        },
      );
    }
    return view;
  }

  /** docs/reference/ask.md#response `shape`: the kind, the as_of the record was read at and its row counts. */
  summary(): Record<string, unknown> | undefined {
    const shaped = [...this.views.values()].find((v) => v.shaped)?.shaped;
    if (!shaped || !this.ask.shape) return undefined;
    return { kind: this.ask.shape.kind, as_of: shaped.asOf, counts: shaped.counts, features: shaped.features };
  }

  private cached(key: string, make: () => RecordView): RecordView {
    let v = this.views.get(key);
    if (!v) {
      v = make();
      this.views.set(key, v);
    }
    return v;
  }
}
