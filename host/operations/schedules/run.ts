// One scheduled run (docs/reference/schedules.md#runs), a task like an ask (run_id = its task id): map (fetch every source
// again, replay the mapping, the readings closed since the last run) -> fit (plain first, then refit_of the
// model in use; skipped, unbilled, when the labelled readings are unchanged row for row) -> drift -> score
// (today's open cases, with the model in use) -> report (the newly closed outcomes, to the model that was in
// use). Each step runs under the idempotency key `<run_id>:<step>`, so a run whose node died is taken over
// by another node's runner (tasks.ts) and resumes: the steps done replay their stored replies, nothing is
// fetched, fitted or billed twice.
//
// Policy (docs/reference/schedules.md#runs): keep -> the kept model lives on until one day past the next run; refit -> the
// refit is the model in use; abandon -> the schedule stops. Halts (a field, not a problem): the key it acts
// as was revoked (credential_revoked) or a source could not be fetched (source_unreachable). This service
// keeps no payment account, so the payment halts never occur (docs/decisions/README.md).
import { createHash } from 'node:crypto';
import { serviceErrorOf } from '../../errors.ts';
import { AskRequestSchema, parseBody } from '../../schemas/index.ts';
import type { ScheduleRecord, ScheduleRunUpdate } from '../../store/index.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { executeAsk } from '../ask/ask.ts';
import { runAddDataset } from '../datasets/add-dataset.ts';
import { runDrift } from '../models/drift.ts';
import type { TaskProgress } from '../../runtime/events/progress.ts';
import { extendModelOperation } from '../models/extend-model.ts';
import { bodyOnlyRequest } from '../operation.ts';
import { withIdempotency } from '../../runtime/idempotency.ts';
import { keptMapping, replayForRun, type ReplaySeen } from '../map/map.ts';
import { runReportOutcomes } from '../outcomes/report-outcomes.ts';
import { requireLink } from '../models/model-links.ts';
import { daysPastNextRun } from './cadence.ts';
import { runReportOf, STEPS, type RunReport, type RunState, type StepName } from './view.ts';

/** The stored body of a run's task. */
export interface RunBody {
  schedule_id: string;
  run_id: string;
}

/** docs/reference/limits.md#limits eventIdMax: an event_id is at most 128 characters. */
const EVENT_ID_MAX = 128;

interface MapStep {
  dataset_ids: string[];
  labelled_hash: string | null;
  status: string;
  ask: Record<string, unknown> | null;
  open_count: number;
  as_of: string | null;
  closed: Array<{ entity: string; snapshot_at: string; label: number; label_observed_at: string }>;
}

interface AskStep {
  model_ref: string | null;
  state: string | null;
  fits_run: number;
  decisions: number;
}

/** Stops the run where it stands (halted or stopped), the step given the reason. */
class RunEnds extends Error {
  constructor(
    readonly state: RunState,
    readonly halt: string | null,
    readonly step: StepName,
    readonly code: string,
    detail: string,
  ) {
    super(detail);
  }
}

/**
 * docs/reference/schedules.md#schedule report: `<mapping_id>:<entity>:<snapshot_at>`; an entity too long for the 128-character
 * event_id is named by the first 32 hex digits of its sha256 instead (decision: README).
 */
export function scheduledEventId(mappingId: string, entity: string, snapshotAt: string): string {
  const id = `${mappingId}:${entity}:${snapshotAt}`;
  if (id.length <= EVENT_ID_MAX) return id;
  return `${mappingId}:h${createHash('sha256').update(entity).digest('hex').slice(0, 32)}:${snapshotAt}`;
}

export async function executeScheduleRun(ctx: OpContext, raw: unknown, progress: TaskProgress): Promise<OpResult> {
  const { schedule_id, run_id } = raw as RunBody;
  const { store } = ctx.services;
  const ws = ctx.caller!.workspaceId;
  const schedule = await store.getSchedule(ws, schedule_id);
  // deleted since, or a later run replaced this one: nothing of this run is recorded any more
  if (!schedule || schedule.run_id !== run_id) return { status: 200, body: { schedule_id, run_id, state: 'stopped', superseded: true } };
  const report = runReportOf(schedule)!;
  const run = new Run(ctx, schedule, report, progress);
  await run.go();
  return { status: 200, body: { schedule_id, ...report } };
}

class Run {
  private readonly key: (step: string) => string;
  private readonly ns: string;
  private inUse: string | null;
  private fitHash: string | null = null;

  constructor(
    private readonly ctx: OpContext,
    private readonly s: ScheduleRecord,
    private readonly report: RunReport,
    private readonly progress: TaskProgress,
  ) {
    this.key = (step) => `${report.run_id}:${step}`;
    this.ns = s.namespace;
    this.inUse = s.model_ref;
  }

  async go(): Promise<void> {
    const r = this.report;
    const priorModel = this.s.model_ref;
    let stop: Partial<ScheduleRunUpdate> = {};
    try {
      await this.checkKey();
      const map = await this.step('map', () => this.map());
      if (map.status !== 'confirmed' || map.ask === null) {
        throw new RunEnds('done', null, 'map', `map_${map.status}`, `the mapping replayed as ${map.status}: nothing to fit this period`);
      }
      r.as_of = map.as_of;
      // fit: skipped (unbilled) when the labelled readings are those of the last fit and its model still
      // serves (one that expired or was deleted meanwhile is refitted, and drift settles what to serve)
      let fit: AskStep | null = null;
      const unchanged = map.labelled_hash !== null && map.labelled_hash === this.s.fit_hash;
      // the same readings fitted again are the same fit: plainly, not compared with itself
      const refitOf = unchanged ? null : priorModel;
      if (priorModel !== null && unchanged && (await this.serves(priorModel))) {
        this.mark('fit', 'skipped');
      } else {
        fit = await this.step('fit', () => this.ask('fit', this.fitBody(map.ask!, refitOf)));
        r.fits_run += fit.fits_run;
        r.decisions += fit.decisions;
        this.fitHash = map.labelled_hash;
      }
      // drift: only a refit has something to compare
      let recommendation: string | null = null;
      if (fit === null || refitOf === null || fit.model_ref === null) {
        this.mark('drift', 'skipped');
        // a plain fit (the first, or the same readings again) is the model in use when it answered
        if (fit !== null && refitOf === null) this.inUse = fit.state === 'answered' ? fit.model_ref : null;
      } else {
        const drift = await this.step('drift', () => this.drift(fit!.model_ref!));
        r.drift = { pattern: drift.pattern, recommendation: drift.recommendation, refit_quality: drift.refit_quality };
        recommendation = drift.recommendation;
        if (recommendation === 'refit') this.inUse = fit.model_ref;
        else if (recommendation === 'abandon') this.inUse = null;
      }
      // docs/reference/schedules.md#runs: keep extends the kept model only until one day past the next run
      if (this.inUse !== null && this.inUse === priorModel) await this.extend(this.inUse);
      // score: the fit's own answers are the scores when its model is the one in use
      if (this.inUse === null || map.open_count === 0) {
        this.mark('score', 'skipped');
      } else if (fit !== null && this.inUse === fit.model_ref) {
        this.mark('score', 'done');
        r.scored = fit.decisions;
      } else {
        const scored = await this.step('score', () => this.ask('score', this.scoreBody(map.ask!, this.inUse!)));
        r.decisions += scored.decisions;
        r.scored = scored.decisions;
      }
      r.model_ref = this.inUse;
      // report: what closed since the last run, to the model that was in use for it
      if (priorModel === null) this.mark('report', 'skipped');
      else if (map.closed.length === 0) this.mark('report', 'done');
      else {
        const rep = await this.step('report', () => this.reportOutcomes(priorModel, map.closed));
        r.reported = rep.written;
        r.duplicates = rep.duplicates;
      }
      if (recommendation === 'abandon') {
        r.state = 'stopped';
        stop = { state: 'stopped', next_run_at: null };
      } else r.state = 'done';
    } catch (err) {
      const ended = err instanceof RunEnds ? err : this.failure(err);
      r.state = ended.state;
      r.error = { step: ended.step, code: ended.code, detail: ended.message };
      if (r.steps[ended.step] === 'running' || r.steps[ended.step] === 'pending') r.steps[ended.step] = 'failed';
      for (const st of STEPS) if (r.steps[st] === 'pending') r.steps[st] = 'skipped';
      if (ended.halt !== null) stop = { state: 'halted', halt_code: ended.halt, next_run_at: null };
    }
    r.step = lastStep(r);
    await this.save({ ...stop, model_ref: this.inUse, fit_hash: this.fitHash ?? this.s.fit_hash });
  }

  /** An unexpected failure of a step: the run ends `done` with that step failed; the schedule stays active. */
  private failure(err: unknown): RunEnds {
    const step = STEPS.find((st) => this.report.steps[st] === 'running') ?? 'map';
    const e = serviceErrorOf(err);
    if (!e) this.ctx.services.log.error({ err, run_id: this.report.run_id }, 'scheduled run failed');
    return new RunEnds(
      'done',
      null,
      step,
      e?.code ?? 'internal',
      e?.message ?? 'the step failed inside the service; the next run tries again',
    );
  }

  private async checkKey(): Promise<void> {
    const keys = await this.ctx.services.store.listApiKeysByWorkspace(this.s.workspace_id);
    const key = keys.find((k) => k.id === this.s.key_id);
    if (!key || key.revoked_at !== null) {
      throw new RunEnds(
        'halted',
        'credential_revoked',
        'map',
        'credential_revoked',
        `the API key ${this.s.key_id} the schedule acts as was revoked; schedule the mapping again with a live key`,
      );
    }
  }

  private mark(step: StepName, state: RunReport['steps'][StepName]): void {
    this.report.steps[step] = state;
    this.report.step = step;
  }

  /** Runs a step under its idempotency key, its state recorded before and after. */
  private async step<T>(name: StepName, fn: () => Promise<T>): Promise<T> {
    this.mark(name, 'running');
    await this.save({});
    const result = await withIdempotency(this.ctx, `schedule:${name}`, this.key(name), { schedule_id: this.s.schedule_id }, async () => ({
      status: 200,
      body: await fn(),
    }));
    this.mark(name, 'done');
    return result.body as T;
  }

  private async save(u: Partial<ScheduleRunUpdate>): Promise<void> {
    const ok = await this.ctx.services.store.updateScheduleRun(this.s.schedule_id, this.report.run_id, {
      last_run: JSON.stringify(this.report),
      run_state: this.report.state,
      ...u,
    });
    if (!ok)
      throw new RunEnds(
        'stopped',
        null,
        this.report.step ?? 'map',
        'unknown_schedule',
        'the schedule was deleted while this run was under way',
      );
  }

  private async map(): Promise<MapStep> {
    this.progress.loading('fetching the sources of the mapping again');
    const kept = await keptMapping(this.ctx, this.ns, this.s.mapping_id);
    const datasets: string[] = [];
    for (let i = 0; i < kept.request.sources.length; i++) {
      const src = kept.request.sources[i];
      try {
        const stored = await runAddDataset(this.ctx, {
          fetch_url: src.fetch_url!,
          ...(src.fetch_headers ? { fetch_headers: src.fetch_headers } : {}),
        });
        datasets.push(stored.body.dataset_id);
      } catch (err) {
        const e = serviceErrorOf(err);
        if (
          e &&
          (e.code === 'fetch_failed' || e.code === 'fetch_refused' || e.code === 'invalid_request' || e.code === 'record_too_large')
        ) {
          throw new RunEnds('halted', 'source_unreachable', 'map', e.code, `source ${i} (${src.fetch_url}): ${e.message}`);
        }
        throw err;
      }
    }
    // docs/reference/schedules.md#runs: the readings closed since the previous run's as_of are this run's to report
    const prev = this.report.closed_since;
    const seen: ReplaySeen = {};
    const reply = (await replayForRun(this.ctx, this.ns, this.s.mapping_id, datasets, prev ?? undefined, seen)).body as Record<string, any>;
    const record = reply.record as Record<string, any> | undefined;
    return {
      dataset_ids: datasets,
      labelled_hash: seen.labelledHash ?? null,
      status: String(reply.status),
      ask: reply.status === 'confirmed' ? (reply.ask as Record<string, unknown>) : null,
      open_count: Number(reply.open_cases?.count ?? 0),
      as_of: record?.reading?.as_of ?? null,
      // the first run reports nothing (no model was in use), so it reads no closed readings
      closed: prev === null ? [] : (reply.closed ?? []),
    };
  }

  private fitBody(ask: Record<string, unknown>, prior: string | null): Record<string, unknown> {
    const questions = ask.questions as Record<string, Record<string, unknown>>;
    const days = daysPastNextRun(this.ctx.services.now(), this.s.next_run_at ?? this.ctx.services.now());
    return {
      ...ask,
      ...this.common(),
      model_ttl_days: Math.min(365, days),
      questions: Object.fromEntries(Object.entries(questions).map(([n, q]) => [n, prior ? { ...q, refit_of: prior } : q])),
    };
  }

  private scoreBody(ask: Record<string, unknown>, modelRef: string): Record<string, unknown> {
    const questions = ask.questions as Record<string, Record<string, unknown>>;
    return {
      ...ask,
      ...this.common(),
      questions: Object.fromEntries(Object.keys(questions).map((n) => [n, { type: 'yesno', model_ref: modelRef }])),
    };
  }

  private common(): Record<string, unknown> {
    return {
      subject_kind: this.s.subject_kind,
      ...(this.s.acknowledged ? { acknowledge_decision_support: true } : {}),
      ...(this.ns ? { namespace: this.ns } : {}),
    };
  }

  private async ask(step: 'fit' | 'score', body: Record<string, unknown>): Promise<AskStep> {
    const reply = (await executeAsk(this.ctx, parseBody(AskRequestSchema, body), this.progress)).body as Record<string, any>;
    const answers = Object.values(reply.answers ?? {}) as Array<Record<string, any>>;
    const first = answers[0] ?? {};
    return {
      model_ref: typeof first.model_ref === 'string' ? first.model_ref : step === 'score' ? this.inUse : null,
      state: typeof first.state === 'string' ? first.state : null,
      fits_run: Number(reply.fits_run ?? 0),
      decisions: Number(reply.billable_decisions ?? 0),
    };
  }

  private async drift(modelRef: string): Promise<{ pattern: string; recommendation: string; refit_quality: string }> {
    const reply = (await runDrift(this.ctx, { model_ref: modelRef, ...(this.ns ? { namespace: this.ns } : {}) })).body as Record<
      string,
      any
    >;
    return { pattern: String(reply.pattern), recommendation: String(reply.recommendation), refit_quality: String(reply.refit_quality) };
  }

  /** Whether the model can still score (not expired, not deleted, still this namespace's). */
  private async serves(modelRef: string): Promise<boolean> {
    try {
      await requireLink(this.ctx, modelRef, this.ns, { use: 'serve' });
      return true;
    } catch (err) {
      if (serviceErrorOf(err)) return false;
      throw err;
    }
  }

  private async extend(modelRef: string): Promise<void> {
    const now = this.ctx.services.now();
    const days = Math.min(365, daysPastNextRun(now, this.s.next_run_at ?? now));
    await extendModelOperation.run(this.ctx, { model_ref: modelRef, days, ...(this.ns ? { namespace: this.ns } : {}) }, bodyOnlyRequest());
  }

  private async reportOutcomes(modelRef: string, closed: MapStep['closed']): Promise<{ written: number; duplicates: number }> {
    const outcomes = closed.map((c) => ({
      entity_id: c.entity,
      outcome: c.label,
      observed_at: c.label_observed_at,
      event_id: scheduledEventId(this.s.mapping_id, c.entity, c.snapshot_at),
    }));
    const reply = (
      await runReportOutcomes(this.ctx, { model_ref: modelRef, ...(this.ns ? { namespace: this.ns } : {}), outcomes, partial: true })
    ).body as { results?: Array<{ status: string }> };
    const results = reply.results ?? [];
    return {
      written: results.filter((x) => x.status === 'written').length,
      duplicates: results.filter((x) => x.status === 'duplicate').length,
    };
  }
}

function lastStep(r: RunReport): StepName | null {
  let last: StepName | null = null;
  for (const st of STEPS) if (r.steps[st] !== 'pending' && r.steps[st] !== 'skipped') last = st;
  return last;
}
