// How far a pending call has got, as one snapshot that every stage event carries whole (docs/reference/tasks.md#events: "first
// comes the current stage with all facts so far"). The host's own steps (reading, shaping, scoring,
// signing) and the engine's reports from inside each fit (P_ codes, host/engine/abi.ts) move it; nothing
// here is timed or estimated (docs/guides/pending-asks.md: progress is real).
import * as abi from '../../engine/abi.ts';
import type { ProgressListener } from '../../engine/index.ts';
import { STAGE_OF_STEP, type AnswerData, type EventSink, type Facts, type Stage, type StageData, type Step } from './types.ts';

/** Share of one fit done when the engine reports a step (its boundaries; bags take most of a fit). */
function fitFraction(stage: number, done: number, total: number): number | null {
  const part = total > 0 ? Math.min(1, done / total) : 0;
  switch (stage) {
    case abi.P_ORDER:
      return 0.02;
    case abi.P_SPLIT:
    case abi.P_SPLIT_FOLDS:
      return 0.04;
    case abi.P_BINNING:
      return 0.04 + 0.11 * part;
    case abi.P_BAG:
      return 0.15 + 0.75 * part;
    case abi.P_PAIRS:
      return 0.9;
    case abi.P_DECIDE:
      return 0.95;
    default:
      return null; // a code this host does not know: the step stays as it was
  }
}

// One formatter for every count ("12,345"): toLocaleString builds its formatter on each call, on every ask.
const COUNT_FORMAT = new Intl.NumberFormat('en-US');
const count = (n: number) => COUNT_FORMAT.format(n);

export class TaskProgress {
  private step: Step = 'reading';
  private message = 'Reading the record';
  private readonly facts: Facts = {};
  /** Share done of each fit the call runs (a fit found in the store counts as done). */
  private fitShares: number[] = [];
  private fit: number | undefined;
  private bag: number | undefined;
  private bags: number | undefined;
  /** docs/reference/map.md#backtest: a backtest reports each fit's steps as its cutoff's (progress.stage cutoff, never binning). */
  private backtest = false;

  constructor(
    private readonly sink: EventSink,
    private readonly now: () => number,
    /** When the call began (or the task, when another process resumes it): elapsed_ms counts from here. */
    private readonly startedAt: number,
  ) {}

  get stage(): Stage {
    return STAGE_OF_STEP[this.step];
  }

  /** The snapshot a stage event and a pending reply carry. */
  current(): StageData {
    const out: StageData = {
      stage: this.stage,
      step: this.step,
      message: this.message,
      elapsed_ms: Math.max(0, this.now() - this.startedAt),
      facts: { ...this.facts },
    };
    if (this.fitShares.length > 0) {
      out.frac = Math.round((this.fitShares.reduce((a, b) => a + b, 0) / this.fitShares.length) * 1000) / 1000;
      out.of = this.fitShares.length;
      if (this.fit !== undefined) out.fit = this.fit + 1;
    }
    if (this.step === 'fitting' && this.bags !== undefined) {
      out.bag = this.bag;
      out.bags = this.bags;
    }
    return out;
  }

  /** docs/reference/tasks.md#pending `progress` of a pending reply: the finer step as `stage`, with the same numbers. */
  progress(): Record<string, unknown> {
    return progressOf(this.current());
  }

  private move(step: Step, message: string): void {
    if (this.backtest && (step === 'binning' || step === 'fitting' || step === 'deciding')) step = 'cutoff';
    this.step = step;
    this.message = message;
    this.sink.stage(this.current());
  }

  reading(): void {
    this.move('reading', 'Reading the record');
  }

  /** The record is read: its rows are the first fact. */
  read(rows: number): void {
    this.facts.rows = rows;
    this.move('reading', `Read ${count(rows)} rows`);
  }

  shaping(kind: string): void {
    this.move('shaping', `Reading the record through its ${kind} shape`);
  }

  /** The call runs `of` fits (docs/reference/datasets.md#lifecycle `of`); `found` of them are already stored and count as done. */
  fits(of: number): void {
    this.fitShares = Array.from({ length: of }, () => 0);
    if (of > 0) this.move('binning', of > 1 ? `Preparing ${of} fits` : 'Preparing the fit');
  }

  /** A fit that needs no run (stored, or run by another call) is done at once. */
  fitFound(index: number): void {
    if (index < this.fitShares.length) this.fitShares[index] = 1;
  }

  /** The listener for fit `index` (0-based) of the outcome column `outcome`: the engine's reports move the snapshot. */
  fitListener(index: number, outcome: string): ProgressListener {
    return (stage, done, total) => {
      const share = fitFraction(stage, done, total);
      if (share === null) return;
      this.fitShares[index] = Math.max(this.fitShares[index] ?? 0, share);
      this.fit = index;
      this.facts.outcome = outcome;
      const of = this.fitShares.length;
      const which = of > 1 ? `Fit ${index + 1} of ${of} (${outcome})` : `Fit of ${outcome}`;
      switch (stage) {
        case abi.P_ORDER:
          this.move('binning', `${which}: ${count(done)} rows put in canonical order`);
          return;
        case abi.P_SPLIT:
        case abi.P_SPLIT_FOLDS:
          this.facts.training_rows = done;
          this.facts.held_out_rows = total;
          this.facts.bootstrap = stage === abi.P_SPLIT_FOLDS;
          this.move(
            'binning',
            stage === abi.P_SPLIT_FOLDS
              ? `${which}: ${count(done)} labeled rows, each held out once in turn (cross-fitted: too few rows, or of the rarer outcome, for one held-out part)`
              : `${which}: ${count(done)} training rows, ${count(total)} held out for the check`,
          );
          return;
        case abi.P_BINNING:
          this.move('binning', `${which}: binning column ${Math.min(done + 1, total)} of ${total}`);
          return;
        case abi.P_BAG:
          this.bag = done;
          this.bags = total;
          this.move('fitting', done < total ? `${which}: fitting bag ${done + 1} of ${total}` : `${which}: all ${total} bags fitted`);
          return;
        case abi.P_PAIRS:
          this.move('fitting', `${which}: checking pair terms`);
          return;
        case abi.P_DECIDE:
          this.move('deciding', `${which}: deciding on ${count(this.facts.held_out_rows ?? 0)} held-out rows`);
          return;
      }
    };
  }

  /** Fit `index` came back from the engine. */
  fitDone(index: number): void {
    if (index < this.fitShares.length) this.fitShares[index] = 1;
  }

  /** docs/reference/map.md#backtest: a backtest reads its record (stage reading_data, progress.stage loading). */
  loading(message: string, rows?: number): void {
    this.backtest = true;
    if (rows !== undefined) this.facts.rows = rows;
    this.move('loading', message);
  }

  /** docs/reference/map.md#backtest: the backtest fits one cutoff each (`of` in all); fits already stored count as done. */
  cutoffs(of: number, outcome: string): void {
    this.backtest = true;
    this.fitShares = Array.from({ length: of }, () => 0);
    this.facts.outcome = outcome;
    this.move('cutoff', of === 1 ? 'Fitting 1 cutoff' : `Fitting ${of} cutoffs`);
  }

  /** docs/reference/map.md#backtest: every cutoff's fit is back; each is graded on what came after it. */
  grading(cutoffs: number): void {
    this.move('grading', `Grading ${cutoffs} cutoff${cutoffs === 1 ? '' : 's'} against what came after`);
  }

  scoring(question: string, cases: number): void {
    this.move('scoring', `Scoring ${count(cases)} case${cases === 1 ? '' : 's'} for ${question}`);
  }

  signing(question: string): void {
    if (this.step === 'signing' && this.message.endsWith(` ${question}`)) return;
    this.move('signing', `Signing the verdicts of ${question}`);
  }

  /** docs/reference/tasks.md#events: one answer event per question, after every stage event (a fresh stream starts at the last stage). */
  answer(question: string, body: Record<string, unknown>): void {
    const state = String(body.state);
    const data: AnswerData = { question, state, decision: decisionOf(state) };
    if (Array.isArray(body.reasons)) data.reasons = body.reasons.map(String);
    this.sink.answer(data);
  }
}

/** docs/reference/outcomes.md#drift: `decision` restates `state`. */
export function decisionOf(state: string): AnswerData['decision'] {
  return state === 'answered' ? 'actionable' : state === 'not_yet' ? 'not_yet' : 'refused';
}

/** docs/reference/tasks.md#pending `progress {stage, frac, fit, of, facts_so_far}` from a stage event's data. */
export function progressOf(d: Partial<StageData>): Record<string, unknown> {
  const out: Record<string, unknown> = { stage: d.step ?? 'reading', frac: d.frac ?? 0 };
  if (d.fit !== undefined) out.fit = d.fit;
  if (d.of !== undefined) out.of = d.of;
  if (d.bag !== undefined) out.bag = d.bag;
  if (d.bags !== undefined) out.bags = d.bags;
  out.facts_so_far = d.facts ?? {};
  return out;
}

/** A sink for a call that never became a task: its events go nowhere. */
export const NO_EVENTS: EventSink = { stage: () => undefined, answer: () => undefined };
