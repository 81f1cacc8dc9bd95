// What a task's event stream carries (spec 2.12) and the stage names a pending call reports (spec 3.3,
// contract 1.1 decision on spec 4 item 7: README "Contract 1.1 decisions").

/** Spec 3.3: the pending `stage` values (backtesting is the backtest's own). */
export type Stage = 'reading_data' | 'reading_shape' | 'asking' | 'backtesting';

/**
 * The finer step inside a stage (issue 17's list), sent as the stage event's `step` and as `progress.stage`:
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
  // additions 2.8: a backtest's steps (loading is reading_data; a cutoff's fit and the grading are backtesting)
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

/** Where a task of `operation` stands before its first stage event (additions 2.8: a backtest starts at loading). */
export function firstStageOf(operation: string): { stage: Stage; step: Step } {
  return { stage: 'reading_data', step: operation === 'svc_backtest' ? 'loading' : 'reading' };
}

/** Spec 2.12 stage event `facts` / spec 3.3 `progress.facts_so_far`: what is known so far, never a chance. */
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
  /** 0-1 over the call's fits (spec 3.3). */
  frac?: number;
  /** The fit this step belongs to, 1-based, of `of` fits the call runs. */
  fit?: number;
  of?: number;
  /** While fitting: bags boosted so far of the fit's bags. */
  bag?: number;
  bags?: number;
}

/** The `data` of an answer event, less `task_id`: no chance or finding (spec 2.12), only what the answer decided. */
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
