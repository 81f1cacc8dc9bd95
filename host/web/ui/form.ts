// The question form: fills its column pickers from a record, proposes the sample's own question, and
// builds the ask body (docs/reference/ask.md#request) that both the page and the service answer.
import type { RawTable } from '../../table/types.ts';
import { entityKey } from '../../table/select.ts';
import { cellText } from '../../table/typing.ts';
import { byId, setOptions } from './dom.ts';

/** A sample as svc_describe lists it (the fields the page reads). */
export interface SampleInfo {
  name: string;
  dataset_id: string;
  shape: string;
  entity_column: string;
  outcome_column: string;
  description: string;
  try: { entity_column: string; subject_kind: string; questions: { q: Record<string, any> }; cases?: { ids: string[] } };
}

const MAX_CASE_IDS = 10_000; // docs/reference/limits.md#limits

/** Names an outcome column usually has (whole words of the name, any case). */
const OUTCOME_WORDS =
  /(^|_|\b)(churn(ed)?|outcome|label|target|converted|conversion|default(ed)?|lapsed|failed|failure|won|lost|responded|response|cancel(l?ed)?|fraud|defect|clicked|bought|purchased|retained|renewed|left|y)($|_|\b)/i;

/**
 * The column to propose as the outcome of a picked file: a two-valued column named like an outcome
 * (`churn`, `converted`, `label`, ...), the last such if several; none when no name says so (the person
 * chooses: the first two-valued column is as often `paperless_billing` as the outcome).
 */
export function guessOutcome(table: RawTable, exclude: readonly string[]): string | undefined {
  const named = table.columns.filter((c) => !exclude.includes(c) && OUTCOME_WORDS.test(c) && distinctValues(table, c, 3).length === 2);
  return named[named.length - 1];
}

const input = (id: string) => byId<HTMLInputElement>(id);
const select = (id: string) => byId<HTMLSelectElement>(id);
const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');

/** Distinct non-missing values of a column, in first-appearance order (at most `limit`). */
function distinctValues(table: RawTable, column: string, limit: number): string[] {
  const c = table.columns.indexOf(column);
  const seen = new Set<string>();
  if (c < 0) return [];
  for (const cell of table.data[c]) {
    const t = cellText(cell);
    if (t !== null) seen.add(t);
    if (seen.size > limit) break;
  }
  return [...seen].slice(0, limit);
}

export class QuestionForm {
  private table: RawTable | null = null;
  readonly form = byId<HTMLFormElement>('ask-form');

  constructor() {
    const sync = () => {
      this.form.dataset.type = select('type').value;
      this.form.dataset.cases = select('cases-mode').value;
    };
    select('type').addEventListener('change', sync);
    select('cases-mode').addEventListener('change', sync);
    select('option-column').addEventListener('change', () => this.fillOptions());
    sync();
  }

  /** New record: column pickers, and the sample's own question when it is a sample. */
  setRecord(table: RawTable, sample?: SampleInfo): void {
    this.table = table;
    const cols: Array<[string, string]> = table.columns.map((c) => [c, c]);
    const entity = sample?.entity_column ?? table.columns[0];
    setOptions(select('entity'), cols, entity);
    const outcome = sample?.outcome_column ?? guessOutcome(table, [entity]);
    // No name says which column is the outcome: the person picks it (the form will not submit without one).
    setOptions(select('outcome'), outcome === undefined ? [['', '(choose the yes/no column)'], ...cols] : cols, outcome ?? '');
    setOptions(select('time'), [['', '(none)'], ...cols], '');
    setOptions(select('option-column'), cols, select('option-column').value);
    const q = sample?.try.questions.q ?? { type: 'yesno' };
    select('type').value = q.type;
    select('desirable').value = q.outcome_is_desirable === undefined ? '' : String(q.outcome_is_desirable);
    input('positives').value = (q.positive_values ?? []).join(', ');
    if (q.option_column) select('option-column').value = q.option_column;
    if (q.options) input('options').value = q.options.join(', ');
    else this.fillOptions();
    if (q.top_k) input('top-k').value = String(q.top_k);
    select('subject').value = sample?.try.subject_kind ?? 'other';
    input('ack').checked = select('subject').value === 'person';
    input('case-ids').value = (sample?.try.cases?.ids ?? []).join(', ');
    select('cases-mode').value = 'all';
    select('type').dispatchEvent(new Event('change'));
  }

  private fillOptions(): void {
    if (this.table) input('options').value = distinctValues(this.table, select('option-column').value, 12).join(', ');
  }

  /** The ask body for `data` (a sample by name, or the CSV text itself). */
  buildAsk(data: { dataset_id: string } | { csv: string }): Record<string, unknown> {
    if (!this.table) throw new Error('Pick a record first.');
    const type = select('type').value;
    const q: Record<string, unknown> = { type, outcome_column: select('outcome').value };
    const desirable = select('desirable').value;
    if (desirable !== '') q.outcome_is_desirable = desirable === 'true';
    const positives = list(input('positives').value);
    if (positives.length > 0) q.positive_values = positives;
    if (type === 'rank') q.top_k = Number(input('top-k').value);
    if (type === 'choice') {
      q.option_column = select('option-column').value;
      q.options = list(input('options').value);
    }
    const entity = select('entity').value;
    const ask: Record<string, unknown> = { data, entity_column: entity, subject_kind: select('subject').value, questions: { q } };
    if (select('time').value !== '') ask.time_column = select('time').value;
    if (input('ack').checked) ask.acknowledge_decision_support = true;
    if (select('cases-mode').value === 'ids') ask.cases = { ids: list(input('case-ids').value) };
    else if (type !== 'rank') ask.cases = { ids: this.allIds(entity) };
    return ask;
  }

  /** Every entity id of the record, first appearance first (docs/reference/ask.md#cases: each id's latest row answers). */
  private allIds(entity: string): string[] {
    const c = this.table!.columns.indexOf(entity);
    const ids = new Set<string>();
    for (const cell of c >= 0 ? this.table!.data[c] : []) {
      const id = entityKey(cell);
      if (id !== null) ids.add(id);
    }
    if (ids.size > MAX_CASE_IDS)
      throw new Error(`The record has ${ids.size} cases; an ask takes at most ${MAX_CASE_IDS} ids. Choose rank, or list ids.`);
    return [...ids];
  }
}
