// Builds each question's answer from its fit(s) and the scored cases (docs/reference/ask.md#answer, docs/reference/ask.md rules
// 3-6): yesno, score levels, choice over options, rank; refusals and not_yet; band; Verdicts. Contract
// 1.1 adds per-case not_scoreable results, p_display, decision and next[], model_expires_at,
// model_columns and a namespace profile's sentences (docs/reference/ask.md#answer, docs/reference/ask.md#case-result, docs/reference/models.md#profile).
import { ServiceError } from '../errors.ts';
import { DEFAULT_CUTS, DEFAULT_LEVELS, DEFAULT_TOP_K, type Question, type SubjectKind } from '../schemas/index.ts';
import { parseNumber } from '../table/typing.ts';
import type { RawTable } from '../table/types.ts';
import type { EngineModule } from '../engine/wasm.ts';
import type { FitOutcome } from './fit-outcome.ts';
import { compareIds, inRequestOrder, pickRows, readableCases, type CaseSet } from './cases.ts';
import { decisionOf, nextSteps, type NextContext } from './next-steps.ts';
import { saysOf, type AnswerProfile } from './says.ts';
import { explanationOf, reasonsNoteOf } from './explain.ts';
import { scoreTable, type ScoredCase } from './scoring.ts';
import { bandOf } from './band.ts';
import type { SignedVerdict, VerdictCase, VerdictInput } from './verdicts.ts';
import { leversForCases, type Lever } from './levers.ts';
import type { LeverGrant } from '../signing/lever-token.ts';
import { setOwn } from '../schemas/record.ts';

/**
 * What building an answer needs beyond the fits and cases: the engine, and the two things only the service
 * holds (its signing key and its lever-token secret). The browser page passes its own (no signing).
 */
export interface AnswerDeps {
  engine: EngineModule;
  /** Signs one Verdict (docs/reference/verdicts.md); null where nothing may sign: answers then carry no verdicts. */
  sign: ((v: VerdictInput) => Promise<SignedVerdict>) | null;
  /** The opaque token of a lever, for svc_attest (docs/reference/ask.md#answer). */
  leverToken: (g: LeverGrant) => string;
}

export interface AnswerInput {
  deps: AnswerDeps;
  name: string;
  question: Question;
  /** One fit, or one per option for choice with option_outcomes (same order as the options). */
  fits: FitOutcome[];
  options?: string[];
  cases: CaseSet;
  recordHash: string;
  subjectKind: SubjectKind;
  acknowledged: boolean;
  band: boolean;
  /** docs/reference/models.md#profile: the namespace's profile (sentences, fixed columns, its hash in Verdicts). */
  profile?: AnswerProfile;
  /** docs/reference/ask.md#answer next[]: what the caller may do next (the service only; the page has none). */
  next?: NextContext;
}

export interface BuiltAnswer {
  body: Record<string, unknown>;
  /** Answered cases (billed on the caller's own data). */
  billable: number;
  /** Cases the answer covers, answered or not (0 for refused and not_yet). */
  asked: number;
  /**
   * docs/reference/ask.md#request-fields export: every case of the answer in order, for the CSV (a rank: every ranked case, not
   * only its top_k, then the unreadable ones). Built lazily, one case at a time.
   */
  allCases?: () => Iterable<Record<string, unknown>>;
}

type CaseResult = Record<string, unknown> & { entity_id: string };

function polarityOf(q: Question): 'desirable' | 'undesirable' | null {
  if (q.outcome_is_desirable === undefined) return null;
  return q.outcome_is_desirable ? 'desirable' : 'undesirable';
}

/** docs/reference/ask.md#states: refused and not_yet are answers; retrying the same call cannot change them. */
function unansweredBody(q: Question, fit: FitOutcome, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = { type: q.type, state: fit.state, cache: fit.cache, polarity: polarityOf(q), outcome: fit.outcome };
  body.reasons = fit.reasons;
  body.retry = 'unproductive';
  if (fit.state === 'not_yet') {
    body.needs = fit.needs ?? { labeled_rows: null, positives: 0 };
    body.have = fit.have;
  } else {
    body.model_ref = fit.modelRef;
    body.quality = fit.quality;
    if (fit.needs) body.needs = fit.needs;
    body.have = fit.have;
  }
  return { ...body, ...extra };
}

export async function buildAnswer(a: AnswerInput): Promise<BuiltAnswer> {
  const built = await buildBody(a);
  const body = built.body;
  // docs/reference/ask.md#answer: model_expires_at (choice: the earliest of its models) and model_columns
  const expiries = a.fits.map((f) => f.modelExpiresAt).filter((x): x is number => typeof x === 'number');
  if (expiries.length > 0) body.model_expires_at = new Date(Math.min(...expiries)).toISOString();
  const model = a.fits.length === 1 ? a.fits[0].model : null;
  if (model && a.question.type !== 'choice') body.model_columns = model.usedColumns();
  if (a.profile) {
    body.profile = { hash: a.profile.hash, display: a.profile.display, exclusions_applied: a.profile.exclusionsApplied };
    if (model && a.profile.fixed.size > 0) {
      // docs/reference/models.md#profile: fixed columns stay in the model, get no lever, and are listed as fixed_by_caller
      const fixed = model.usedColumns().filter((c) => a.profile!.fixed.has(c));
      if (fixed.length > 0 && body.quality) {
        const q = body.quality as { excluded_columns?: unknown[] };
        body.quality = {
          ...q,
          excluded_columns: [...(q.excluded_columns ?? []), ...fixed.map((column) => ({ column, why: 'fixed_by_caller' }))],
        };
      }
    }
  }
  // docs/reference/ask.md#cases: cases.open that found no case says so, rather than an unexplained empty list
  if (a.cases.note !== undefined && body.state === 'answered') body.cases_note = a.cases.note;
  // docs/reference/ask.md#answer: decision restates state; next[] says what to do from the answer alone
  body.decision = decisionOf(body.state as string);
  // a refusal or not_yet says why in words, with its numbers, as the page does (core/explain.ts)
  const explanation = explanationOf(body as unknown as Parameters<typeof explanationOf>[0]);
  if (explanation !== undefined) body.explanation = explanation;
  if (a.next) body.next = nextSteps(a.next, a.name, body);
  return built;
}

async function buildBody(a: AnswerInput): Promise<BuiltAnswer> {
  const q = a.question;
  if (q.type === 'choice' && q.option_outcomes !== undefined) return choiceByOutcomes(a);
  const fit = a.fits[0];
  if (fit.state !== 'answered' || !fit.model) return { body: unansweredBody(q, fit), billable: 0, asked: 0 };
  switch (q.type) {
    case 'yesno':
    case 'score':
      return simpleAnswer(a, fit);
    case 'rank':
      return rankAnswer(a, fit);
    case 'choice':
      return choiceByColumn(a, fit);
  }
}

/** docs/reference/ask.md#case-result p_display: whole percent, `<1%` below 0.005, `>99%` from 0.995. */
export function pDisplayOf(p: number): string {
  if (p < 0.005) return '<1%';
  if (p >= 0.995) return '>99%';
  return `${Math.round(p * 100)}%`;
}

function answeredBase(q: Question, fit: FitOutcome): Record<string, unknown> {
  return {
    type: q.type,
    state: 'answered',
    cache: fit.cache,
    model_ref: fit.modelRef,
    polarity: polarityOf(q),
    // which column was learned and which of its values were read as yes (docs/reference/ask.md#questions positive_values)
    outcome: fit.outcome,
    quality: fit.quality,
  };
}

export function levelOf(q: Question, p: number): string | undefined {
  if (q.type !== 'score') return undefined;
  const levels = q.levels ?? [...DEFAULT_LEVELS];
  const cuts = q.cuts ?? [...DEFAULT_CUTS];
  let i = 0;
  while (i < cuts.length && p >= cuts[i]) i++; // docs/reference/ask.md#questions: very_likely is "from 0.75"
  return levels[i];
}

/**
 * A yesno, score or rank case: the Verdict's fields in the Verdict's (canonical) key order, then
 * levers and band, which the Verdict does not hold.
 */
function caseResult(
  a: AnswerInput,
  fit: FitOutcome,
  id: string,
  s: ScoredCase,
  signed: { level?: string; position?: number },
  levers?: Lever[],
): CaseResult {
  const out: CaseResult = { entity_id: id };
  if (signed.level !== undefined) out.level = signed.level;
  out.p = s.p;
  out.p_display = pDisplayOf(s.p);
  if (signed.position !== undefined) out.position = signed.position;
  out.reasons = s.reasons;
  const note = reasonsNoteOf(s, fit.quality.base_rate);
  if (note !== undefined) out.reasons_note = note;
  if (levers) out.levers = levers;
  if (a.band) Object.assign(out, bandOf(fit.quality, s, a.subjectKind));
  if (a.profile && out.refused !== true) out.says = saysOf(a.profile, a.question, out);
  return out;
}

/**
 * The cases a Verdict signs: the answer's own case objects when they hold nothing the Verdict does
 * not (no levers, no band), so the answer and its Verdict share one array and a reply writes it
 * from the signed text (reply-json.ts); otherwise copies without the extras.
 */
function signedCases(cases: CaseResult[], a: AnswerInput, levers: Lever[][] | null): VerdictCase[] {
  const extras = levers || a.band || a.profile || cases.some((c) => c.reasons_note !== undefined);
  return extras ? cases.map(verdictCase) : (cases as unknown as VerdictCase[]);
}

/** The Verdict's fields of a case result (docs/reference/ask.md#case-result subset signed by docs/reference/verdicts.md), in canonical key order. */
function verdictCase(c: CaseResult): VerdictCase {
  const v = {} as VerdictCase;
  if (c.choice !== undefined) v.choice = c.choice as string;
  v.entity_id = c.entity_id;
  if (c.level !== undefined) v.level = c.level as string;
  v.p = c.p as number;
  v.p_display = c.p_display as string;
  if (c.position !== undefined) v.position = c.position as number;
  v.reasons = c.reasons as unknown[];
  return v;
}

/**
 * The cases of one option's Verdict (choice, docs/reference/verdicts.md: one Verdict per option): each case's chance
 * of that option and that option's own reasons, with the case's choice.
 */
function optionCases(cases: CaseResult[], option: string, scored: ScoredCase[]): VerdictCase[] {
  return cases.map((c, r) => ({
    choice: c.choice as string,
    entity_id: c.entity_id,
    p: (c.p as Record<string, number>)[option],
    reasons: scored[r].reasons,
  }));
}

/** The answer's `verdicts`, when it has signed ones (none in the page). */
function verdictsField(verdicts: Array<SignedVerdict | null>): { verdicts?: SignedVerdict[] } {
  const signed = verdicts.filter((v): v is SignedVerdict => v !== null);
  return signed.length > 0 ? { verdicts: signed } : {};
}

async function sign(a: AnswerInput, fit: FitOutcome, cases: VerdictCase[], option?: string): Promise<SignedVerdict | null> {
  if (!a.deps.sign) return null;
  return a.deps.sign({
    question: a.name,
    type: a.question.type,
    option,
    modelRef: fit.modelRef,
    recordHash: a.recordHash,
    outcomeColumn: fit.outcome.column,
    positiveValues: fit.outcome.positive_values,
    polarity: polarityOf(a.question),
    subjectKind: a.subjectKind,
    acknowledged: a.acknowledged,
    quality: fit.quality,
    cases,
    profileHash: a.profile?.hash,
  });
}

/** docs/reference/ask.md#reasons levers: only when outcome_is_desirable says which way is better (docs/reference/ask.md#reasons). */
function leversOf(
  a: AnswerInput,
  fit: FitOutcome,
  table: CaseSet['table'],
  ids: readonly string[],
  scored: readonly ScoredCase[],
): Lever[][] | null {
  const desirable = a.question.outcome_is_desirable;
  if (desirable === undefined) return null;
  return leversForCases(a.deps, fit.model!, fit.modelRef, desirable, table, ids, scored, a.profile?.fixed);
}

/** The answer's cases in request order: the answered ones, and each unreadable or unknown one as not_scoreable. */
function allInOrder(cs: CaseSet, answered: CaseResult[]): CaseResult[] {
  return inRequestOrder(cs, answered) as CaseResult[];
}

async function simpleAnswer(a: AnswerInput, fit: FitOutcome): Promise<BuiltAnswer> {
  const cs = readableCases(a.cases, [fit.model!]);
  const scored = scoreTable(a.deps.engine, fit.model!, cs.table);
  const levers = leversOf(a, fit, cs.table, cs.entityIds, scored);
  const cases = scored.map((s, r) => caseResult(a, fit, cs.entityIds[r], s, { level: levelOf(a.question, s.p) }, levers?.[r]));
  const verdicts = cases.length > 0 ? [await sign(a, fit, signedCases(cases, a, levers))] : [];
  const all = allInOrder(cs, cases);
  const levelsNote = levelsNoteOf(a.question, fit.quality.base_rate, cases);
  return {
    body: { ...answeredBase(a.question, fit), cases: all, ...verdictsField(verdicts), ...(levelsNote ? { levels_note: levelsNote } : {}) },
    billable: cases.length,
    asked: cs.total,
    allCases: () => all,
  };
}

/**
 * docs/decisions/0076-score-levels-note.md: a score with the default cuts on a record whose base rate lies outside
 * them (below 0.25 or above 0.75) puts nearly every case in one level; when more than half of the answer's cases
 * are in that end level, the answer says so in `levels_note`, with
 * cuts at half, 1.5 and 3 times the base rate (mirrored for a high one) that grade cases against it.
 */
export function levelsNoteOf(q: Question, baseRate: number, cases: readonly CaseResult[]): string | undefined {
  if (q.type !== 'score' || q.cuts !== undefined || !(baseRate > 0 && baseRate < 1)) return undefined;
  const low = baseRate < DEFAULT_CUTS[0];
  if (!low && baseRate <= DEFAULT_CUTS[DEFAULT_CUTS.length - 1]) return undefined;
  const cut = (x: number) => Number(x.toPrecision(2));
  const cuts = low
    ? [0.5, 1.5, 3].map((k) => cut(Math.min(k * baseRate, 0.99)))
    : [3, 1.5, 0.5].map((k) => cut(1 - Math.min(k * (1 - baseRate), 0.99)));
  const rate = `${Math.round(baseRate * 100)}%`;
  const level = low ? (q.levels ?? DEFAULT_LEVELS)[0] : (q.levels ?? DEFAULT_LEVELS)[DEFAULT_CUTS.length];
  const inLevel = cases.filter((c) => c.level === level).length;
  // only when the cuts do fail here: more than half of the answered cases share that end level
  if (!(inLevel > cases.length / 2)) return undefined;
  return (
    `${inLevel} of ${cases.length} cases are ${level}: the default cuts (${DEFAULT_CUTS.join(', ')}) lie ${low ? 'above' : 'below'} this record's base rate of ${rate}, ` +
    `so they tell few cases apart. To grade cases against the base rate, send cuts such as [${cuts.join(', ')}] ` +
    `(${low ? 'half, 1.5 times and 3 times the base rate' : 'the same steps measured from 100%'}) with levels that name what they mean.`
  );
}

/** docs/reference/ask.md#answer: a rank lists its first 100 unreadable cases, and their count. */
const NOT_SCOREABLE_LISTED = 100;

async function rankAnswer(a: AnswerInput, fit: FitOutcome): Promise<BuiltAnswer> {
  const q = a.question as Extract<Question, { type: 'rank' }>;
  const cs = readableCases(a.cases, [fit.model!]);
  const scored = scoreTable(a.deps.engine, fit.model!, cs.table);
  const order = scored.map((_, r) => r);
  // docs/reference/ask.md#questions: highest chance first; ties by entity id so the order is deterministic
  order.sort((x, y) => scored[y].p - scored[x].p || compareIds(cs.entityIds[x], cs.entityIds[y]));
  const topK = Math.min(q.top_k ?? DEFAULT_TOP_K, order.length);
  const top = order.slice(0, topK);
  const levers = leversOf(
    a,
    fit,
    pickRows(cs.table, top),
    top.map((r) => cs.entityIds[r]),
    top.map((r) => scored[r]),
  );
  const ranked = top.map((r, i) => caseResult(a, fit, cs.entityIds[r], scored[r], { position: i + 1 }, levers?.[i]));
  const verdicts = ranked.length > 0 ? [await sign(a, fit, signedCases(ranked, a, levers))] : [];
  const unreadable = cs.skipped.map((s) => s.result);
  const body: Record<string, unknown> = { ...answeredBase(q, fit), ranked, ranked_total: order.length, ...verdictsField(verdicts) };
  if (topK < order.length) {
    // a rank without cases returns top_k of the whole record: say so, and how to get more (docs/reference/ask.md)
    const n = (x: number) => x.toLocaleString('en-US');
    body.ranked_note =
      `The ${n(topK)} highest of ${n(order.length)} ranked cases (top_k ${q.top_k === undefined ? `defaults to ${DEFAULT_TOP_K}` : `is ${q.top_k}`}). ` +
      `Send a larger top_k (up to 1,000) for more, or export: "csv" for every case.`;
  }
  if (unreadable.length > 0) {
    body.not_scoreable = unreadable.slice(0, NOT_SCOREABLE_LISTED);
    body.not_scoreable_total = unreadable.length;
  }
  const allCases = function* () {
    yield* ranked;
    for (let i = topK; i < order.length; i++) {
      const r = order[i];
      yield caseResult({ ...a, band: false }, fit, cs.entityIds[r], scored[r], { position: i + 1 });
    }
    yield* unreadable;
  };
  return { body, billable: ranked.length, asked: cs.total, allCases };
}

/** A copy of the case table with `column` set to `value` on every row (added when absent). */
function withColumn(t: RawTable, column: string, value: string | number): RawTable {
  const c = t.columns.indexOf(column);
  const filled = new Array(t.rowCount).fill(value);
  if (c >= 0) return { ...t, data: t.data.map((col, i) => (i === c ? filled : col)) };
  return { columns: [...t.columns, column], data: [...t.data, filled], rowCount: t.rowCount };
}

function pick(options: string[], p: Record<string, number>, best: 'max' | 'min'): string {
  let at = options[0];
  for (const o of options) if (best === 'max' ? p[o] > p[at] : p[o] < p[at]) at = o; // ties: first option
  return at;
}

/**
 * docs/reference/ask.md#case-result choice results: each option's chance, most_likely, least_likely and the choice (the most
 * likely option for a wanted outcome, the least likely for one to avoid), with the chosen option's
 * reasons (and band, judged on the chosen option's fit).
 */
function choiceCases(
  a: AnswerInput,
  entityIds: readonly string[],
  options: string[],
  perOption: ScoredCase[][],
  qualityOf: (option: number) => FitOutcome['quality'],
): CaseResult[] {
  const desirable = a.question.outcome_is_desirable;
  return entityIds.map((id, r) => {
    const p: Record<string, number> = {};
    options.forEach((o, i) => setOwn(p, o, perOption[i][r].p));
    const most = pick(options, p, 'max');
    const least = pick(options, p, 'min');
    const choice = desirable ? most : least;
    const ci = options.indexOf(choice);
    const chosen = perOption[ci][r];
    const pDisplay: Record<string, string> = {};
    options.forEach((o) => setOwn(pDisplay, o, pDisplayOf(p[o])));
    const out: CaseResult = {
      entity_id: id,
      p,
      p_display: pDisplay,
      most_likely: most,
      least_likely: least,
      choice,
      reasons: chosen.reasons,
    };
    if (a.band) Object.assign(out, bandOf(qualityOf(ci), chosen, a.subjectKind));
    if (a.profile && out.refused !== true) out.says = saysOf(a.profile, a.question, out);
    return out;
  });
}

async function choiceByColumn(a: AnswerInput, fit: FitOutcome): Promise<BuiltAnswer> {
  const q = a.question as Extract<Question, { type: 'choice' }>;
  const column = q.option_column!;
  const options = q.options!;
  const model = fit.model!;
  const j = model.columns.findIndex((c) => c.name === column);
  const notInPattern = (): BuiltAnswer => ({
    body: {
      ...unansweredBody(q, { ...fit, state: 'refused', reasons: ['option_not_in_pattern'], needs: null }),
      detail: `${column} makes no difference to ${q.outcome_column} in this record`,
    },
    billable: 0,
    asked: 0,
  });
  if (j < 0) {
    throw new ServiceError(
      'invalid_request',
      `questions.${a.name}.option_column: ${JSON.stringify(column)} is not a column of the record`,
      {
        field: `questions.${a.name}.option_column`,
      },
    );
  }
  if (model.columns[j].kind === 'unused') return notInPattern();
  const numeric = model.columns[j].kind === 'numeric';
  // the option column is set per option, so a case row need not carry it
  const cs = readableCases(a.cases, [model], new Set([column]));
  const perOption: ScoredCase[][] = options.map((o, i) => {
    let value: string | number = o;
    if (numeric) {
      const x = parseNumber(o);
      if (x === null) {
        throw new ServiceError('invalid_request', `questions.${a.name}.options.${i}: ${column} is numeric, so options must be numbers`, {
          field: `questions.${a.name}.options.${i}`,
        });
      }
      value = x;
    }
    return scoreTable(a.deps.engine, model, withColumn(cs.table, column, value));
  });
  const differs = cs.entityIds.some((_, r) => perOption.some((s) => s[r].p !== perOption[0][r].p));
  if (!differs && cs.entityIds.length > 0) return notInPattern();
  const cases = choiceCases(a, cs.entityIds, options, perOption, () => fit.quality);
  const verdicts: Array<SignedVerdict | null> = [];
  for (let i = 0; i < options.length && cases.length > 0; i++) {
    verdicts.push(await sign(a, fit, optionCases(cases, options[i], perOption[i]), options[i]));
  }
  const all = allInOrder(cs, cases);
  return {
    body: { ...answeredBase(q, fit), cases: all, ...verdictsField(verdicts) },
    billable: cases.length,
    asked: cs.total,
    allCases: () => all,
  };
}

async function choiceByOutcomes(a: AnswerInput): Promise<BuiltAnswer> {
  const q = a.question as Extract<Question, { type: 'choice' }>;
  const options = a.options!;
  const model_refs: Record<string, string> = {};
  options.forEach((o, i) => setOwn(model_refs, o, a.fits[i].modelRef));
  const firstBad = a.fits.findIndex((f) => f.state !== 'answered' || !f.model);
  if (firstBad >= 0) {
    const bad = a.fits[firstBad];
    return { body: { ...unansweredBody(q, bad, { model_refs, option: options[firstBad] }), model_ref: undefined }, billable: 0, asked: 0 };
  }
  const cs = readableCases(
    a.cases,
    a.fits.map((f) => f.model!),
  );
  const perOption = a.fits.map((f) => scoreTable(a.deps.engine, f.model!, cs.table));
  const cases = choiceCases(a, cs.entityIds, options, perOption, (i) => a.fits[i].quality);
  const verdicts: Array<SignedVerdict | null> = [];
  for (let i = 0; i < options.length && cases.length > 0; i++) {
    const o = options[i];
    const v = await a.deps.sign?.({
      question: a.name,
      type: 'choice',
      option: o,
      modelRef: a.fits[i].modelRef,
      recordHash: a.recordHash,
      outcomeColumn: q.option_outcomes![o],
      positiveValues: a.fits[i].outcome.positive_values,
      polarity: polarityOf(q),
      subjectKind: a.subjectKind,
      acknowledged: a.acknowledged,
      quality: a.fits[i].quality,
      cases: optionCases(cases, o, perOption[i]),
      profileHash: a.profile?.hash,
    });
    verdicts.push(v ?? null);
  }
  const all = allInOrder(cs, cases);
  const body = {
    type: 'choice',
    state: 'answered',
    cache: a.fits.every((f) => f.cache === 'hit') ? 'hit' : 'miss',
    model_refs,
    polarity: polarityOf(q),
    quality: Object.fromEntries(options.map((o, i) => [o, a.fits[i].quality])),
    cases: all,
    ...verdictsField(verdicts),
  };
  return { body, billable: cases.length, asked: cs.total, allCases: () => all };
}
