// The live progress of a pending ask, drawn from its stage events (docs/reference/tasks.md#stages): a
// checklist of the steps with the current one's message, the bags of the fit, and the share done. On a
// terminal it is redrawn in place; anywhere else (a pipe, a log, a CI job) it prints one line per change,
// so recorded output reads as a log. It writes to stderr: stdout carries only the answer.
import { styleText } from 'node:util';

export interface ProgressOut {
  write(text: string): void;
  /** Redraw in place (a terminal) rather than append lines. */
  live: boolean;
  colour: boolean;
}

/** The steps of an ask in the order they run; a backtest's own after them. */
const ASK_STEPS = ['reading', 'shaping', 'binning', 'fitting', 'deciding', 'scoring', 'signing'] as const;
const BACKTEST_STEPS = ['loading', 'cutoff', 'grading'] as const;

export interface StageSnapshot {
  stage?: string;
  step?: string;
  message?: string;
  frac?: number;
  fit?: number;
  of?: number;
  bag?: number;
  bags?: number;
  elapsed_ms?: number;
}

export class ProgressDisplay {
  private snapshot: StageSnapshot = {};
  private drawnLines = 0;
  private lastLine = '';
  private readonly seen = new Set<string>();
  private answers: string[] = [];
  private finished = false;

  constructor(private readonly out: ProgressOut) {}

  private paint(style: Parameters<typeof styleText>[0], text: string): string {
    return this.out.colour ? styleText(style, text) : text;
  }

  /** The task started (a pending reply): its id and, when given, the link anyone can watch it at. */
  start(taskId: string, watchUrl?: string): void {
    this.note(`Fitting in the background: task ${taskId}${watchUrl ? `\n  watch it in a browser: ${watchUrl}` : ''}`);
  }

  /** A line that stays (a reconnect, a fallback); drawn above the live checklist. */
  note(text: string): void {
    this.clear();
    this.out.write(`${this.paint('dim', text)}\n`);
    this.draw();
  }

  /** A stage event's data, or a polled pending reply's progress (its `stage` is the step). */
  stage(s: StageSnapshot): void {
    this.snapshot = { ...s };
    if (s.step) this.seen.add(s.step);
    this.clear();
    this.draw();
  }

  /** An answer event: one question decided. */
  answer(question: string, state: string, reasons?: string[]): void {
    const why = reasons && reasons.length > 0 ? ` (${reasons.join(', ')})` : '';
    this.answers.push(`${question}: ${state}${why}`);
    this.clear();
    if (!this.out.live) this.out.write(`        ${question} is ${state}${why}\n`);
    this.draw();
  }

  /** The task ended: on a terminal, the checklist is redrawn with every step done and left on screen. */
  finish(): void {
    if (!this.out.live || !this.snapshot.step) return;
    this.clear();
    this.finished = true;
    this.draw();
    this.drawnLines = 0;
  }

  private clear(): void {
    if (!this.out.live || this.drawnLines === 0) return;
    this.out.write(`\x1b[${this.drawnLines}A\x1b[0J`);
    this.drawnLines = 0;
  }

  private draw(): void {
    const s = this.snapshot;
    if (!s.step) return;
    const frac = this.finished ? 1 : (s.frac ?? 0);
    const pct = `${String(Math.floor(frac * 100)).padStart(3)}%`;
    const fit = s.of && s.of > 1 && !(s.message ?? '').includes(`Fit ${s.fit} of`) ? ` fit ${s.fit} of ${s.of}` : '';
    if (!this.out.live) {
      // One line per change: the share done, the step, what it is doing.
      const line = `  ${pct}  ${(s.step ?? '').padEnd(8)}  ${s.message ?? ''}${fit}`.trimEnd();
      if (line !== this.lastLine) this.out.write(`${line}\n`);
      this.lastLine = line;
      return;
    }
    const order: readonly string[] = (BACKTEST_STEPS as readonly string[]).includes(s.step) ? BACKTEST_STEPS : ASK_STEPS;
    const at = order.indexOf(s.step);
    const lines: string[] = [];
    for (const [i, step] of order.entries()) {
      if (step === 'shaping' && !this.seen.has('shaping')) continue; // only shaped records have it
      if (this.finished && i > at) continue; // steps the task never reached (a refusal scores nothing)
      if (i < at || this.finished) lines.push(`  ${this.paint('green', '✔')} ${step}`);
      else if (i === at) {
        const bags =
          step === 'fitting' && s.bags ? this.paint('dim', ` ${bar((s.bag ?? 0) / s.bags, 20)} ${s.bag}/${s.bags} bags done`) : '';
        lines.push(`  ${this.paint('cyan', '▸')} ${this.paint('bold', step)}  ${s.message ?? ''}${bags}`);
      } else lines.push(`  ${this.paint('dim', `· ${step}`)}`);
    }
    const secs = s.elapsed_ms !== undefined ? `  ${(s.elapsed_ms / 1000).toFixed(1)} s` : '';
    lines.push(`  ${bar(frac, 30)} ${pct}${fit}${secs}`);
    for (const a of this.answers) lines.push(`  ${a}`);
    this.out.write(lines.join('\n') + '\n');
    this.drawnLines = lines.length;
  }
}

function bar(frac: number, width: number): string {
  const f = Math.max(0, Math.min(1, frac));
  const full = Math.round(f * width);
  return `[${'#'.repeat(full)}${'.'.repeat(width - full)}]`;
}
