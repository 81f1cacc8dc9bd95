// svc_map confirm (docs/reference/map.md#map): the record the filled slots make, and the ask that reads it. A lone
// table is the record as it is; one log is read through the snapshots grid (docs/reference/map.md#snapshots) straight from
// its source; two logs, or a log with a table giving the outcome time, are merged into one log (event
// types `<label>_<type>`, the table's outcome time on each row of its case), stored as a dataset of the
// workspace, and read through the same grid.
import { createHash } from 'node:crypto';
import { ServiceError } from '../../errors.ts';
import type { Shape } from '../../schemas/index.ts';
import { parseCsv } from '../../table/csv.ts';
import { applyShape, type ShapedRecord } from '../../table/shapes/index.ts';
import { slug } from '../../table/shapes/names.ts';
import { GRID_LOOKBACKS_DEFAULT } from '../../table/shapes/snapshots.ts';
import { entityKey } from '../../table/select.ts';
import type { Cell, RawTable } from '../../table/types.ts';
import { cellText, compareCodePoints, isMissing } from '../../table/typing.ts';
import type { OpContext } from '../../runtime/services.ts';
import { runAddDataset } from '../datasets/add-dataset.ts';
import { testKeyRefusal } from '../datasets/errors.ts';
import { columnsOf, screenColumn } from '../datasets/suggest.ts';
import type { Layout } from './proposal.ts';
import type { Slots } from './slots.ts';
import { CAPS, distinctIds, type SourceAnalysis } from './sources.ts';

/** The reading parameters of a mapping (docs/reference/map.md#map defaults: 1w, 30 days). */
export interface Reading {
  snapshot_every: '1d' | '1w' | '4w';
  horizon: { value: 1 | 7 | 30 | 60 | 90; unit: 'days' };
  as_of?: string;
}

export type Built =
  | {
      kind: 'record';
      ask: Record<string, unknown>;
      record: Record<string, unknown>;
      openCases: { count: number; sample_ids: string[] };
      datasetId?: string;
      shaped?: ShapedRecord;
      /** sha256 of the labelled readings row for row (docs/reference/schedules.md#schedule: a scheduled fit is skipped when unchanged). */
      labelledHash: string;
      how: string;
    }
  | { kind: 'not_runnable'; code: string; why: string };

/** Gate rejects (docs/reference/map.md#suggest codes) that make a table outcome not runnable; flags stay runnable. */
const TABLE_GATE = new Set(['constant_outcome', 'missingness_as_outcome', 'prevalence_out_of_band']);

export async function buildRecord(ctx: OpContext, layout: Layout, slots: Slots, reading: Reading, namespace?: string): Promise<Built> {
  const ns: Record<string, string> = namespace !== undefined ? { namespace } : {};
  if (layout.mode === 'table') return buildTable(layout.table!, slots, ns);
  const outcome = slots.outcome;
  if (layout.logs.length === 1 && outcome.kind !== 'outcome_time') {
    const built = readGrid(layout.logs[0], slots, reading, ns);
    // docs/reference/map.md#map: with logs a table's columns are as of its export; this outcome needs nothing of it
    if (built.kind === 'record' && layout.table)
      built.how += `; ${layout.table.src.label} gives nothing to this outcome (its columns are as_of_export)`;
    return built;
  }
  return mergeAndRead(ctx, layout, slots, reading, ns);
}

function buildTable(a: SourceAnalysis, slots: Slots, ns: Record<string, string>): Built {
  const t = a.src.table;
  const entity = slots.entity.get(a.src.label)!;
  const o = slots.outcome;
  const columns = columnsOf(t, [entity]);
  const col = columns.find((c) => c.name === o.column)!;
  const s = screenColumn(t, columns, col, o.positives!);
  if (s.code !== null && TABLE_GATE.has(s.code)) {
    return { kind: 'not_runnable', code: s.code, why: `${o.column} as the outcome fails its gate (${s.code})` };
  }
  const oc = t.columns.indexOf(o.column!);
  const ec = t.columns.indexOf(entity);
  const open = new Set<string>();
  for (let r = 0; r < t.rowCount; r++) {
    const id = entityKey(t.data[ec][r]);
    if (id !== null && isMissing(t.data[oc][r])) open.add(id);
  }
  const openIds = [...open].sort(compareCodePoints);
  const ask = {
    data: a.src.ref,
    entity_column: entity,
    ...ns,
    questions: { q: { type: 'yesno', outcome_column: o.column, positive_values: o.positives } },
    cases: { open: true },
  };
  return {
    kind: 'record',
    ask,
    record: {
      kind: 'table',
      rows: t.rowCount,
      cases: distinctIds(t, entity),
      labelled_rows: s.labeled,
      positives: s.positives,
      open_rows: t.rowCount - s.labeled,
      outcome: { offer_id: o.offer_id, column: o.column, positive_values: o.positives },
      excluded_columns: s.definedBy.map((c) => ({ column: c, why: 'restates_outcome' })),
      holdout: { whole_cases_by: 'entity_hash' },
    },
    openCases: { count: openIds.length, sample_ids: openIds.slice(0, CAPS.openIds) },
    labelledHash: labelledHashOf(t, o.column!),
    how: 'the table as it is, one row per case',
  };
}

/** sha256 over the rows whose outcome is known, every cell as text, in row order (the columns named first). */
export function labelledHashOf(t: RawTable, outcomeColumn: string): string {
  const h = createHash('sha256').update(JSON.stringify(t.columns));
  const oc = t.columns.indexOf(outcomeColumn);
  for (let r = 0; r < t.rowCount; r++) {
    if (isMissing(t.data[oc][r])) continue;
    h.update('\n' + JSON.stringify(t.data.map((col) => cellText(col[r]))));
  }
  return h.digest('hex');
}

/** A label name (`^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$`, up to 40 characters) from free text. */
function labelName(text: string): string {
  const s = slug(text).replace(/_+/g, '_').slice(0, 30).replace(/_$/, '');
  return /^[a-z]/.test(s) ? s : `e_${s}`.slice(0, 30);
}

function gridShape(
  reading: Reading,
  label: Pick<Shape & { kind: 'snapshots' }, 'label' | 'outcome_time_column'>,
  extra: Record<string, unknown>,
) {
  return {
    kind: 'snapshots' as const,
    snapshot_every: reading.snapshot_every,
    horizon: reading.horizon,
    ...label,
    ...extra,
    ...(reading.as_of !== undefined ? { as_of: reading.as_of } : {}),
  };
}

/** The shape read over `table`, its gate (an outcome always or never yes at this horizon is not runnable), the open cases. */
function gridResult(
  shaped: ShapedRecord,
  ask: Record<string, unknown>,
  reading: Reading,
  outcomeOffer: string,
  how: string,
  datasetId?: string,
): Built {
  const c = shaped.counts;
  if (c.positives === 0 || c.positives === c.labeled) {
    const what = c.positives === 0 ? 'never happens' : 'always happens';
    return {
      kind: 'not_runnable',
      code: 'constant_outcome',
      why: `at a ${reading.horizon.value}-day horizon the outcome ${what} in the ${c.labeled} readings whose horizon has closed`,
    };
  }
  // each case's latest reading (entity, then time, first); the open ones are those read at as_of
  const cur = shaped.current!;
  const open: string[] = [];
  for (let r = 0; r < cur.rowCount; r++) if (cellText(cur.data[1][r]) === shaped.asOf) open.push(String(cur.data[0][r]));
  return {
    kind: 'record',
    ask,
    record: {
      kind: 'snapshots',
      rows: c.rows,
      cases: c.cases,
      labelled_rows: c.labeled,
      positives: c.positives,
      open_rows: c.rows - c.labeled,
      outcome: { offer_id: outcomeOffer, column: shaped.outcomeColumn, positive_values: ['1'] },
      reading: {
        snapshot_every: reading.snapshot_every,
        horizon: reading.horizon,
        as_of: shaped.asOf,
        lookbacks_days: [...GRID_LOOKBACKS_DEFAULT],
      },
      features: shaped.features,
      holdout: { whole_cases_by: 'entity_hash' },
    },
    openCases: { count: open.length, sample_ids: open.slice(0, CAPS.openIds) },
    shaped,
    labelledHash: labelledHashOf(shaped.table, shaped.outcomeColumn),
    how,
    ...(datasetId !== undefined ? { datasetId } : {}),
  };
}

function readGrid(log: SourceAnalysis, slots: Slots, reading: Reading, ns: Record<string, string>): Built {
  const o = slots.outcome;
  const entity = slots.entity.get(log.src.label)!;
  const time = slots.time.get(log.src.label)!;
  const label =
    o.kind === 'lapsed'
      ? { label: { lapsed: true as const } }
      : { label: { name: labelName(o.value!), when: { column: o.column!, op: '==' as const, value: o.value! } } };
  const extra: Record<string, unknown> = {};
  if (log.eventColumn !== null) extra.event_column = log.eventColumn;
  if (log.valueColumns.length > 0) extra.value_columns = log.valueColumns;
  const shape = gridShape(reading, label, extra);
  const shaped = applyShape(log.src.table, shape, { entityColumn: entity, timeColumn: time });
  const ask = {
    data: log.src.ref,
    entity_column: entity,
    time_column: time,
    shape,
    ...ns,
    questions: { q: { type: 'yesno', outcome_column: shaped.outcomeColumn } },
    cases: { open: true },
  };
  return gridResult(shaped, ask, reading, o.offer_id, `${log.src.label} read through the snapshots grid`);
}

function csvCell(x: string): string {
  return /[",\r\n]/.test(x) ? `"${x.replaceAll('"', '""')}"` : x;
}

async function mergeAndRead(ctx: OpContext, layout: Layout, slots: Slots, reading: Reading, ns: Record<string, string>): Promise<Built> {
  if (ctx.caller?.mode === 'test') {
    throw testKeyRefusal(
      ctx,
      'svc_map stores a record merged from two logs (or a log and a table) as a dataset of your workspace, which a test key cannot; with a test key, map one sample log alone',
    );
  }
  const first = layout.logs[0];
  const entityName = slots.entity.get(first.src.label)!;
  const timeName = slots.time.get(first.src.label)!;
  const o = slots.outcome;
  const outcomeTimeName = o.kind === 'outcome_time' ? labelName(`${o.source}_${o.column}`) : null;
  let outcomeTimes: Map<string, string> | null = null;
  if (o.kind === 'outcome_time') {
    const t = layout.table!.src.table;
    const key = t.data[t.columns.indexOf(slots.join!.right_key)];
    const when = t.data[t.columns.indexOf(o.column!)];
    outcomeTimes = new Map();
    for (let r = 0; r < t.rowCount; r++) {
      const id = entityKey(key[r]);
      const at = cellText(when[r]);
      if (id !== null && at !== null && !outcomeTimes.has(id)) outcomeTimes.set(id, at);
    }
  }
  // each log's amounts as `<label>_<column>`, blank on the other logs' rows (up to 24 in all)
  const values = layout.logs.flatMap((log) => log.valueColumns.map((v) => ({ log, v, name: `${log.src.label}_${v}` }))).slice(0, 24);
  const header = [entityName, timeName, 'event_type', ...(outcomeTimeName ? [outcomeTimeName] : []), ...values.map((x) => x.name)];
  const lines: string[] = [header.map(csvCell).join(',')];
  for (const log of layout.logs) {
    const t = log.src.table;
    const ec = t.data[t.columns.indexOf(slots.entity.get(log.src.label)!)];
    const tc = t.data[t.columns.indexOf(slots.time.get(log.src.label)!)];
    const kc = log.eventColumn !== null ? t.data[t.columns.indexOf(log.eventColumn)] : null;
    for (let r = 0; r < t.rowCount; r++) {
      const id = entityKey(ec[r] as Cell);
      const at = cellText(tc[r]);
      if (id === null || at === null) continue;
      const type = kc && cellText(kc[r]) !== null ? `${log.src.label}_${cellText(kc[r])}` : log.src.label;
      const row = [id, at, type];
      if (outcomeTimes) row.push(outcomeTimes.get(id) ?? '');
      for (const x of values) row.push(x.log === log ? (cellText(t.data[t.columns.indexOf(x.v)][r]) ?? '') : '');
      lines.push(row.map(csvCell).join(','));
    }
  }
  const csv = lines.join('\n') + '\n';
  const label =
    o.kind === 'lapsed'
      ? { label: { lapsed: true as const } }
      : o.kind === 'outcome_time'
        ? { outcome_time_column: outcomeTimeName! }
        : {
            label: {
              name: labelName(`${o.source}_${o.value}`),
              when: { column: 'event_type', op: '==' as const, value: `${o.source}_${o.value}` },
            },
          };
  const shape = gridShape(reading, label, {
    event_column: 'event_type',
    ...(values.length > 0 ? { value_columns: values.map((x) => x.name) } : {}),
  });
  // Read before storing: a mapping that is not runnable stores nothing (docs/reference/map.md#map "nothing made").
  const shaped = applyShape(parseCsv(csv, { field: 'sources' }), shape, { entityColumn: entityName, timeColumn: timeName });
  if (shaped.counts.positives === 0 || shaped.counts.positives === shaped.counts.labeled) {
    return gridResult(shaped, {}, reading, o.offer_id, '');
  }
  const stored = await runAddDataset(ctx, { csv, filename: 'mapped_record.csv' });
  const datasetId = (stored.body as { dataset_id: string }).dataset_id;
  const ask = {
    data: { dataset_id: datasetId },
    entity_column: entityName,
    time_column: timeName,
    shape,
    ...ns,
    questions: { q: { type: 'yesno', outcome_column: shaped.outcomeColumn } },
    cases: { open: true },
  };
  const how =
    `${layout.logs.map((l) => l.src.label).join(' and ')} merged into one log (event types <label>_<type>)` +
    (o.kind === 'outcome_time' ? `, ${o.source}.${o.column} joined on ${slots.join!.right_key} as each case's outcome time` : '') +
    ', stored as a dataset and read through the snapshots grid';
  return gridResult(shaped, ask, reading, o.offer_id, how, datasetId);
}

/** docs/reference/map.md#map replay + closed_since: readings whose label became known since then. */
export function closedSince(
  shaped: ShapedRecord,
  horizonDays: number,
  since: number,
  max = 10_000,
): { closed: unknown[]; omitted: number } {
  const t = shaped.table;
  const oc = t.columns.indexOf(shaped.outcomeColumn);
  const closed: unknown[] = [];
  let omitted = 0;
  for (let r = 0; r < t.rowCount; r++) {
    const y = t.data[oc][r];
    if (isMissing(y)) continue;
    const at = Date.parse(String(t.data[1][r]));
    const observed = at + horizonDays * 86_400_000;
    if (observed < since) continue;
    if (closed.length >= max) {
      omitted++;
      continue;
    }
    closed.push({
      entity: String(t.data[0][r]),
      snapshot_at: String(t.data[1][r]),
      label: Number(y),
      label_observed_at: new Date(observed).toISOString(),
    });
  }
  return { closed, omitted };
}

export function badAsOf(field: string): ServiceError {
  return new ServiceError('invalid_request', `${field}: not an ISO 8601 time such as 2024-06-30 or 2024-06-30T12:00:00Z`, { field });
}
