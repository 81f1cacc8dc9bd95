// What a shape read returns (docs/reference/ask.md#shapes, docs/reference/ask.md#response `shape`): one table of cases plus the names the fit needs.
import type { RawTable } from '../types.ts';

/** Options every shape read takes; `entityColumn` and `timeColumn` come from the ask (docs/reference/ask.md#request). */
export interface ShapeOptions {
  entityColumn: string;
  /** docs/reference/ask.md#request: required with every shape except `table`. */
  timeColumn: string;
  /**
   * The question the read serves. Series and traces carry their outcome on each row (docs/reference/ask.md#shapes), so
   * the shape cannot name it; traces read it (with its yes values) for the prior rates.
   */
  question?: QuestionOutcome;
  /** docs/reference/map.md#snapshots snapshots table form: the snapshot table, read by the caller from `shape.snapshots`. */
  snapshots?: RawTable;
}

/** A question's outcome as a shape read needs it. */
export interface QuestionOutcome {
  /** Dotted path of the question (`questions.<name>`): errors about its outcome name `<field>.positive_values` (docs/reference/errors.md). */
  field: string;
  /** docs/reference/ask.md#questions `outcome_column`. */
  outcomeColumn: string;
  /** docs/reference/ask.md#questions `positive_values`; default: the column's own yes/no pair. */
  positiveValues?: string[];
}

/** The record read through a shape: one row per case (or per case-snapshot), ready to encode and fit. */
export interface ShapedRecord {
  /** Entity column, named feature columns, kept columns and the outcome column. */
  table: RawTable;
  /** The yes/no column to learn ('' when a series read was not told which column and cannot tell). */
  outcomeColumn: string;
  entityColumn: string;
  /** Present when each row keeps its own time (series, signals, traces): the engine splits out of time. */
  timeColumn?: string;
  /**
   * A snapshots grid's reading time (each row is a case read at that time): neither a feature (a date a
   * later reading never has) nor the hold-out order (whole cases are held out by entity hash).
   */
  readingTimeColumn?: string;
  /** The time the record was read at, ISO 8601 (or the number, when times are plain numbers). */
  asOf: string;
  /** Row counts: input_rows, rows, cases, labeled, positives and what each kind dropped. */
  counts: Record<string, number>;
  /** The columns the shape computed (patterns in SHAPE_FEATURES), in table order. */
  features: string[];
  /** Input columns passed through unchanged (series, traces), in table order. */
  kept: string[];
  /**
   * Events and panel windows only: the same features read at `asOf` itself (outcome blank), one
   * row per case: the rows to score for the window that has not happened yet.
   */
  current?: RawTable;
}
