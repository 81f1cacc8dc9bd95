// svc_preflight (docs/reference/datasets.md#preflight): checks a stored table or sample before
// asking. Fits nothing and refuses nothing; reading a stored dataset seals it (docs/reference/datasets.md).
//
// - grain and resolutions: preflight-columns.ts (the entity column is inferred; the request has none).
// - labeled rows: the outcome is present and, with `labelled_column`, that column says yes (1/true/yes).
// - usable predictors: `predictors` (default: every column but the outcome, the entity and the
//   labelled column) resolved as numeric, category or yes/no, not ambiguous, not restating the outcome.
// - a column's AUC is computed here from the table, on labeled rows: numeric values as they are, yes/no
//   as 0/1, categories by their own positive rate (categories under 10 labeled rows pooled, as the
//   engine bins them); reported as max(AUC, 1 - AUC).
// - blocking: outcome_not_yes_no, no_labeled_rows, outcome_has_one_value, outcome_restated_by:<column>
//   (AUC >= 0.985, the engine's own restates bar), no_usable_predictors, too_few_positives_per_predictor
//   and too_few_negatives_per_predictor (under 4 per usable predictor).
// - advisory: columns nearly restating the outcome (AUC >= 0.9), names that look recorded after the
//   outcome, 4 to 10 positives per predictor, fewer than 80 of either class (the engine will likely
//   answer not_yet), ambiguous columns, several rows per entity, date columns.
import { ServiceError } from '../../errors.ts';
import { unknownSample } from './errors.ts';
import { parseBody } from '../../schemas/index.ts';
import { parseCsv } from '../../table/csv.ts';
import type { Cell, RawTable } from '../../table/types.ts';
import { cellText, isMissing, parseNumber, yesNoMeaning } from '../../table/typing.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { getSample, loadSampleCsv } from '../../../samples/catalog.ts';
import { assertKeyMayUse, isSampleId } from '../ask/record.ts';
import { auc } from '../../lib/auc.ts';
import { outcomeValue } from '../outcomes/report-outcomes.ts';
import { grainOf, inferEntityColumn, resolveColumn, type Grain, type Resolution } from './preflight-columns.ts';
import { setOwn } from '../../schemas/record.ts';
import { FREE, READ_ONLY, type Operation } from '../operation.ts';
import { PreflightRequestSchema, PreflightResponseSchema } from './preflight.schema.ts';

export const RESTATES_AUC = 0.985;
export const NEARLY_RESTATES_AUC = 0.9;
// Preflight's own rule of thumb for an answer worth believing: 4 of each class per usable predictor.
// The engine no longer scales its not_yet bar with columns (its held-out test judges wide tables).
export const BLOCKING_PER_PREDICTOR = 4;
export const ADVISORY_PER_PREDICTOR = 10;
/** What the engine needs of each class before it checks anything: 20 held out, every row held out once when a record
 * has fewer than 80 of its rarer class (docs/decisions/0082-small-records.md; a `time_column` record needs about 80). */
export const NOT_YET_CLASS_ROWS = 20;
const MIN_CATEGORY_ROWS = 10;

const POST_OUTCOME_WORDS = [
  'after',
  'post',
  'outcome',
  'result',
  'resolution',
  'resolved',
  'final',
  'closed',
  'cancel',
  'cancelled',
  'canceled',
  'cancellation',
  'refund',
  'refunded',
  'terminated',
  'termination',
  'exit',
  'reason',
  'followup',
];

export interface Fitness {
  labeled_rows: number;
  positives: number | null;
  negatives: number | null;
  usable_predictors: number;
  positives_per_predictor: number | null;
}

const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;
const quote = (s: string) => `\`${s}\``;

/** The most cells (rows x columns) of a stored dataset svc_preflight reads: the request thread's cache of parsed records. */
const PREFLIGHT_READ_CELLS = 2_000_000;

async function readTable(ctx: OpContext, id: string): Promise<RawTable> {
  if (isSampleId(id)) {
    const sample = getSample(id.slice('sample:'.length));
    if (!sample) throw unknownSample(id, 'dataset_id');
    return parseCsv(loadSampleCsv(sample.name), { field: 'dataset_id' });
  }
  const { loadStoredRecord } = await import('./read.ts');
  // read on the request thread (no task): as much as that thread keeps parsed (docs/guides/overload.md)
  return (await loadStoredRecord(ctx, id, 'dataset_id', { maxCells: PREFLIGHT_READ_CELLS })).table;
}

function columnCells(table: RawTable, name: string, field: string): Cell[] {
  const c = table.columns.indexOf(name);
  if (c < 0) throw new ServiceError('invalid_request', `${field}: ${JSON.stringify(name)} is not a column of the dataset`, { field });
  return table.data[c];
}

/** A column's own AUC against the labels (1/0; NaN rows skipped), as max(AUC, 1 - AUC). */
export function columnAuc(cells: readonly Cell[], res: Resolution, y: Float64Array): number | null {
  const scores: number[] = [];
  const labels: number[] = [];
  if (res.kind === 'numeric' || res.kind === 'yesno') {
    const yes =
      res.kind === 'yesno' ? new Set(yesNoMeaning([...new Set(cells.map(cellText).filter((t) => t !== null))])!.positiveValues) : null;
    cells.forEach((cell, r) => {
      if (Number.isNaN(y[r]) || isMissing(cell)) return;
      scores.push(yes ? (yes.has(cellText(cell)!) ? 1 : 0) : parseNumber(cell)!);
      labels.push(y[r]);
    });
  } else if (res.kind === 'category') {
    const n = new Map<string, number>();
    const k = new Map<string, number>();
    const keyOf = (cell: Cell) => cellText(cell) ?? '\u0000missing';
    cells.forEach((cell, r) => {
      if (Number.isNaN(y[r])) return;
      const key = keyOf(cell);
      n.set(key, (n.get(key) ?? 0) + 1);
      k.set(key, (k.get(key) ?? 0) + y[r]);
    });
    let otherN = 0;
    let otherK = 0;
    for (const [key, count] of n) if (count < MIN_CATEGORY_ROWS) ((otherN += count), (otherK += k.get(key)!));
    cells.forEach((cell, r) => {
      if (Number.isNaN(y[r])) return;
      const key = keyOf(cell);
      const count = n.get(key)!;
      scores.push(count < MIN_CATEGORY_ROWS ? otherK / otherN : k.get(key)! / count);
      labels.push(y[r]);
    });
  } else return null;
  const a = auc(scores, labels);
  return a === null ? null : Math.max(a, 1 - a);
}

function postOutcomeWord(column: string, outcome: string): string | null {
  const words = column
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const hit = words.find((w) => POST_OUTCOME_WORDS.includes(w));
  if (hit) return hit;
  // the outcome's own stem in another column's name (churned -> churn_date)
  const stem = outcome.toLowerCase().replace(/(?:ed|ing|s)$/, '');
  if (stem.length >= 4 && column.toLowerCase() !== outcome.toLowerCase() && column.toLowerCase().includes(stem)) return stem;
  return null;
}

function ambiguitySentence(column: string, res: Resolution): string {
  const a = res.ambiguous!;
  if (a.why === 'case_variants') {
    return `${quote(column)} has spellings that differ only in case (${a.examples.join('; ')}): they count as different values, so it is not used as a predictor until they are made one.`;
  }
  if (a.why === 'day_month_order') {
    return `${quote(column)} holds dates such as ${a.examples[0]} that read as day-first and as month-first: say which by writing them as YYYY-MM-DD.`;
  }
  return `${quote(column)} mixes day-first and month-first dates (${a.examples.join(', ')}): write them as YYYY-MM-DD.`;
}

export async function runPreflight(ctx: OpContext, raw: unknown): Promise<OpResult> {
  const req = parseBody(PreflightRequestSchema, raw);
  assertKeyMayUse(ctx, { dataset_id: req.dataset_id });
  const table = await readTable(ctx, req.dataset_id);

  const outcomeCells = req.outcome_column !== undefined ? columnCells(table, req.outcome_column, 'outcome_column') : null;
  const labelledCells = req.labelled_column !== undefined ? columnCells(table, req.labelled_column, 'labelled_column') : null;
  req.predictors?.forEach((p, i) => columnCells(table, p, `predictors.${i}`));

  const notEntity = new Set([req.outcome_column, req.labelled_column].filter((c): c is string => c !== undefined));
  const entity = inferEntityColumn(table, notEntity);
  const grain: Grain = grainOf(table, entity);
  const resolutions: Record<string, Resolution> = {};
  table.columns.forEach((name, c) => setOwn(resolutions, name, resolveColumn(table.data[c], name === entity.column)));

  const blocking: string[] = [];
  const advisory: string[] = [];
  const candidates = req.predictors ?? table.columns.filter((c) => !notEntity.has(c) && c !== entity.column);
  const sound = candidates.filter((c) => {
    const r = resolutions[c];
    return (r.kind === 'numeric' || r.kind === 'category' || r.kind === 'yesno') && !r.ambiguous;
  });

  let fitness: Fitness | null = null;
  if (outcomeCells !== null) {
    const outcome = req.outcome_column!;
    const meaning =
      resolutions[outcome].kind === 'yesno' ? yesNoMeaning([...new Set(outcomeCells.map(cellText).filter((t) => t !== null))]) : null;
    const yes = meaning ? new Set(meaning.positiveValues) : null;
    const y = new Float64Array(table.rowCount).fill(NaN);
    let labeled = 0;
    let positives = 0;
    for (let r = 0; r < table.rowCount; r++) {
      if (isMissing(outcomeCells[r])) continue;
      if (labelledCells !== null && outcomeValue(cellText(labelledCells[r]) ?? '') !== 1) continue;
      labeled++;
      if (yes) {
        y[r] = yes.has(cellText(outcomeCells[r])!) ? 1 : 0;
        positives += y[r];
      }
    }
    const negatives = labeled - positives;
    const restating: string[] = [];
    if (!yes) blocking.push('outcome_not_yes_no');
    if (labeled === 0) blocking.push('no_labeled_rows');
    else if (yes && (positives === 0 || negatives === 0)) blocking.push('outcome_has_one_value');
    if (yes && positives > 0 && negatives > 0) {
      for (const c of sound) {
        const a = columnAuc(table.data[table.columns.indexOf(c)], resolutions[c], y);
        if (a === null) continue;
        if (a >= RESTATES_AUC) {
          restating.push(c);
          blocking.push(`outcome_restated_by:${c}`);
        } else if (a >= NEARLY_RESTATES_AUC) {
          advisory.push(
            `${quote(c)} nearly restates ${quote(outcome)} on its own (AUC ${round(a, 3)} on labeled rows): check it is known before the outcome and not recorded from it.`,
          );
        }
      }
    }
    const usable = sound.filter((c) => !restating.includes(c)).length;
    fitness = {
      labeled_rows: labeled,
      positives: yes ? positives : null,
      negatives: yes ? negatives : null,
      usable_predictors: usable,
      positives_per_predictor: yes && usable > 0 ? round(positives / usable, 2) : null,
    };
    if (usable === 0) blocking.push('no_usable_predictors');
    if (yes && usable > 0 && labeled > 0) {
      const perPos = positives / usable;
      const perNeg = negatives / usable;
      if (perPos < BLOCKING_PER_PREDICTOR) blocking.push('too_few_positives_per_predictor');
      else if (perPos < ADVISORY_PER_PREDICTOR) {
        advisory.push(
          `${round(perPos, 1)} positives per usable predictor (${positives} over ${usable}): under ${ADVISORY_PER_PREDICTOR} is thin; fewer predictors or more positives make a sturdier fit.`,
        );
      }
      if (perNeg < BLOCKING_PER_PREDICTOR) blocking.push('too_few_negatives_per_predictor');
      const rarer = Math.min(positives, negatives);
      if (rarer > 0 && rarer < NOT_YET_CLASS_ROWS) {
        advisory.push(
          `Only ${rarer} ${positives <= negatives ? 'positive' : 'negative'} labeled rows: the service needs about ${NOT_YET_CLASS_ROWS} of each to check a model on held-out rows, so an ask will likely answer not_yet.`,
        );
      }
    }
    for (const c of candidates) {
      const word = postOutcomeWord(c, outcome);
      if (word)
        advisory.push(
          `${quote(c)} looks like it may be recorded after the outcome (its name says "${word}"): use only what is known before ${quote(outcome)} happens.`,
        );
    }
  }

  for (const c of candidates) {
    const r = resolutions[c];
    if (r.ambiguous) advisory.push(ambiguitySentence(c, r));
    else if (r.kind === 'date')
      advisory.push(
        `${quote(c)} holds dates, which are not used as predictors: derive numbers from them (days since, month) if the time matters.`,
      );
  }
  if (!grain.one_row_per_entity) {
    advisory.push(
      `Some ${quote(grain.entity_column!)} values have several rows (up to ${grain.rows_per_entity_max}): one row should be one case; name a time_column so each case takes its latest row, or use a shape.`,
    );
  }

  return { status: 200, body: { dataset_id: req.dataset_id, grain, resolutions, fitness, blocking, advisory } };
}

/** svc_preflight: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const preflightOperation: Operation = {
  name: 'svc_preflight',
  resource: 'datasets',
  path: '/v1/preflight',
  method: 'POST',
  auth: 'key',
  body: 'json',
  title: 'Check a table before asking',
  description:
    'Checks a stored dataset or a sample before asking; fits nothing and refuses nothing. Returns grain (whether one ' +
    'row is one kind of thing), resolutions (what each column holds; an ambiguous column is not a sound predictor), ' +
    'fitness (positives per usable predictor; null unless outcome_column is named), blocking (reasons an answer from ' +
    'this table would not be believable) and advisory notes. A clean preflight does not promise a pattern exists. ' +
    'Tables only; it seals an open dataset. ' +
    FREE,
  request: PreflightRequestSchema,
  response: PreflightResponseSchema,
  status: 200,
  pending: false,
  tool: READ_ONLY,
  examples: [
    {
      name: 'sample',
      summary: 'Preflight a sample for its outcome',
      value: { dataset_id: 'sample:saas_churn', outcome_column: 'churned' },
    },
  ],
  run: runPreflight,
};
