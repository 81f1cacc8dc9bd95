// What a task's event stream carries (docs/reference/tasks.md#events) and the stage names a pending call reports (docs/reference/tasks.md#pending,
// contract 1.1 decision on docs/decisions/0044-fit-stages.md: docs/decisions/README.md).

/** docs/reference/tasks.md#pending: the pending `stage` values (backtesting is the backtest's own). */
export type Stage = 'reading_data' | 'reading_shape' | 'asking' | 'backtesting';

/**
 * The finer step inside a stage (docs/guides/pending-asks.md's list), sent as the stage event's `step` and as `progress.stage`:
 * reading and shaping are the stages reading_data and reading_shape; the rest are steps of `asking`.
 */
export type Step =
  | 'reading'
  | 'shaping'
  | 'binning'
  | 'fitting'
  | 'deciding'
  | 'scoring'
  | 'signing'
  // docs/reference/map.md#backtest: a backtest's steps (loading is reading_data; a cutoff's fit and the grading are backtesting)
  | 'loading'
  | 'cutoff'
  | 'grading';

export const STAGE_OF_STEP: Record<Step, Stage> = {
  reading: 'reading_data',
  shaping: 'reading_shape',
  binning: 'asking',
  fitting: 'asking',
  deciding: 'asking',
  scoring: 'asking',
  signing: 'asking',
  loading: 'reading_data',
  cutoff: 'backtesting',
  grading: 'backtesting',
};

/** Where a task of `operation` stands before its first stage event (docs/reference/map.md#backtest: a backtest starts at loading). */
export function firstStageOf(operation: string): { stage: Stage; step: Step } {
  return { stage: 'reading_data', step: operation === 'svc_backtest' ? 'loading' : 'reading' };
}

/** docs/reference/tasks.md#events stage event `facts` / docs/reference/tasks.md#pending `progress.facts_so_far`: what is known so far, never a chance. */
export interface Facts {
  rows?: number;
  outcome?: string;
  training_rows?: number;
  held_out_rows?: number;
  /** A small record checked by resampling: here, cross-fitted (every labeled row held out once). */
  bootstrap?: boolean;
}

/** The `data` of a stage event, less `task_id` (the writer adds it): each one carries everything so far. */
export interface StageData {
  stage: Stage;
  step: Step;
  message: string;
  elapsed_ms: number;
  facts: Facts;
  /** 0-1 over the call's fits (docs/reference/datasets.md#lifecycle). */
  frac?: number;
  /** The fit this step belongs to, 1-based, of `of` fits the call runs. */
  fit?: number;
  of?: number;
  /** While fitting: bags boosted so far of the fit's bags. */
  bag?: number;
  bags?: number;
}

/** The `data` of an answer event, less `task_id`: no chance or finding (docs/reference/tasks.md#events), only what the answer decided. */
export interface AnswerData {
  question: string;
  state: string;
  decision: 'actionable' | 'not_yet' | 'refused';
  reasons?: string[];
}

/** Where a call's events go: the task's writer (writer.ts), or nowhere for a call that never went pending. */
export interface EventSink {
  stage(data: StageData): void;
  answer(data: AnswerData): void;
}
