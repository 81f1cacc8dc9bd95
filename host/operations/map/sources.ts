// svc_map sources (docs/reference/map.md#map): reading each source, its label, and what it looks like: a table (one
// row per case) or an event log (many timed rows per case); which columns could name its cases and times.
import { ServiceError } from '../../errors.ts';
import type { RawTable } from '../../table/types.ts';
import { cellText, compareCodePoints } from '../../table/typing.ts';
import { entityKey } from '../../table/select.ts';
import type { OpContext } from '../../runtime/services.ts';
import { assertKeyMayUse, isSampleId, resolveRecord } from '../ask/record.ts';
import { resolveColumn, type Resolution } from '../datasets/preflight-columns.ts';
import { type MapRequest, SOURCE_LABEL_PATTERN } from './map.schema.ts';

/** docs/reference/map.md#map proposal caps. */
export const CAPS = { candidates: 8, samples: 3, resolutions: 64, openIds: 50 } as const;
/** A log's event column names a few kinds of events (more is a free-text column, not a type). */
const MAX_EVENT_TYPES = 50;
/** A text column with at least this many values (and 1 per 100 rows) could name cases. */
const MIN_NAMES = 20;
const ID_NAME = /(?:^id$|_id$|[a-z0-9]Id$|^ID$|_ID$|^key$|_key$)/;
const EVENT_NAME = /(?:^|_)(?:event|type|kind|action|activity|name)(?:$|_)/i;

export type MapSource = NonNullable<MapRequest['sources']>[number];

export interface ReadSource {
  index: number;
  label: string;
  /** The source as the ask and the manifest name it (never fetch_headers). */
  ref: { dataset_id: string } | { fetch_url: string };
  fetchHeaders?: Record<string, string>;
  table: RawTable;
  contentHash: string;
}

export interface EntityCandidate {
  column: string;
  verdict: 'passed' | 'failed';
  code: string | null;
}

export interface SourceAnalysis {
  src: ReadSource;
  grain: { kind: 'table' | 'log'; reason: string };
  /** docs/reference/map.md#map `resolutions[]`: what each column holds (svc_preflight's resolution), the first 64 columns. */
  resolutions: Array<{ column: string } & Resolution>;
  columnsOmitted: number;
  entityCandidates: EntityCandidate[];
  entitySurvivors: string[];
  timeCandidates: { column: string; samples: string[] }[];
  timeSurvivors: string[];
  /** Logs: the column naming the kind of each event (null when none), and its numeric columns. */
  eventColumn: string | null;
  valueColumns: string[];
}

/** docs/reference/map.md#map: a source's label when none is given (its dataset id or file name, sans extension). */
export function defaultLabel(s: MapSource): string {
  let base: string;
  if (s.dataset_id !== undefined) base = isSampleId(s.dataset_id) ? s.dataset_id.slice('sample:'.length) : s.dataset_id;
  else {
    const path = new URL(s.fetch_url!).pathname.split('/').filter(Boolean).pop() ?? 'source';
    base = path.replace(/\.[^.]*$/, '');
  }
  const label = base.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 64);
  return SOURCE_LABEL_PATTERN.test(label) ? label : 'source';
}

/** Reads every source (a test key: samples only); labels must differ (docs/reference/map.md#map: required on clash). */
export async function readSources(ctx: OpContext, sources: readonly MapSource[]): Promise<ReadSource[]> {
  const labels = sources.map((s) => s.label ?? defaultLabel(s));
  labels.forEach((l, i) => {
    const j = labels.indexOf(l);
    if (j < i) {
      const field = `sources.${sources[i].label !== undefined ? i : j}.label`;
      throw new ServiceError('invalid_request', `${field}: two sources are labelled ${JSON.stringify(l)}; give each its own label`, {
        field,
        remedy: 'Give each source a label of its own (A-Z a-z 0-9 _ -, up to 64 characters).',
      });
    }
  });
  const out: ReadSource[] = [];
  for (let i = 0; i < sources.length; i++) {
    const s = sources[i];
    const field = `sources.${i}.${s.dataset_id !== undefined ? 'dataset_id' : 'fetch_url'}`;
    assertKeyMayUse(ctx, s.dataset_id !== undefined ? { dataset_id: s.dataset_id } : { fetch_url: s.fetch_url });
    const data = s.dataset_id !== undefined ? { dataset_id: s.dataset_id } : { fetch_url: s.fetch_url!, fetch_headers: s.fetch_headers };
    let rec;
    try {
      rec = await resolveRecord(ctx, data);
    } catch (err) {
      // errors about data.* name this source
      if (err instanceof ServiceError && err.field?.startsWith('data.')) {
        throw new ServiceError(err.code, err.message.replaceAll('data.', `sources.${i}.`), {
          field,
          extra: err.extra,
          headers: err.headers,
          remedy: err.remedy,
          cause: err,
        });
      }
      throw err;
    }
    out.push({
      index: i,
      label: labels[i],
      ref: s.dataset_id !== undefined ? { dataset_id: s.dataset_id } : { fetch_url: s.fetch_url! },
      ...(s.fetch_headers ? { fetchHeaders: s.fetch_headers } : {}),
      table: rec.table,
      contentHash: rec.contentHash,
    });
  }
  return out;
}

/** Grain, candidates and resolutions of one source. */
export function analyseSource(src: ReadSource): SourceAnalysis {
  const t = src.table;
  const all = t.columns.map((name, c) => [name, resolveColumn(t.data[c], false)] as const);
  const resolutions = all.slice(0, CAPS.resolutions).map(([column, r]) => ({ column, ...r }));

  const entityCandidates: EntityCandidate[] = [];
  for (const [name, r] of all) {
    // named like an id, nearly all distinct, or text naming many things (a log's case column repeats)
    const manyNames = r.kind === 'category' && r.distinct >= Math.max(MIN_NAMES, t.rowCount / 100);
    if (!(ID_NAME.test(name) || r.kind === 'identifier' || manyNames) || r.kind === 'date' || r.kind === 'empty') continue;
    entityCandidates.push(
      r.missing > 0 ? { column: name, verdict: 'failed', code: 'blank_ids' } : { column: name, verdict: 'passed', code: null },
    );
  }
  const entitySurvivors = entityCandidates.filter((c) => c.verdict === 'passed').map((c) => c.column);
  const timeCols = all.filter(([, r]) => r.kind === 'date');
  const timeCandidates = timeCols.map(([name]) => ({ column: name, samples: samplesOf(t, name) }));
  const timeSurvivors = timeCols.filter(([, r]) => !r.ambiguous && r.missing === 0).map(([name]) => name);

  let grain: SourceAnalysis['grain'];
  const repeats = entitySurvivors.find((c) => distinctIds(t, c) < t.rowCount);
  if (repeats !== undefined && timeSurvivors.length > 0) {
    grain = {
      kind: 'log',
      reason: `${repeats} repeats (${distinctIds(t, repeats)} cases over ${t.rowCount} rows) and ${timeSurvivors[0]} holds times: many timed rows per case`,
    };
  } else if (entitySurvivors.length > 0) {
    grain = { kind: 'table', reason: `${entitySurvivors[0]} names the rows: one row per case` };
  } else {
    grain = { kind: 'table', reason: 'no column names the cases without blanks; read as one row per case' };
  }
  const framing = new Set([...entitySurvivors, ...timeCols.map(([n]) => n)]);
  let eventColumn: string | null = null;
  const valueColumns: string[] = [];
  if (grain.kind === 'log') {
    // a text column named like a kind of event (event, type, kind, action, ...): a column of another name
    // (a plan, a region) describes the case, not the event
    const named = all.find(
      ([name, r]) =>
        !framing.has(name) && EVENT_NAME.test(name) && (r.kind === 'category' || r.kind === 'constant') && r.distinct <= MAX_EVENT_TYPES,
    );
    eventColumn = named?.[0] ?? null;
    for (const [name, r] of all) if (!framing.has(name) && r.kind === 'numeric' && valueColumns.length < 24) valueColumns.push(name);
  }
  return {
    src,
    grain,
    resolutions,
    columnsOmitted: Math.max(0, all.length - CAPS.resolutions),
    entityCandidates: entityCandidates.slice(0, CAPS.candidates),
    entitySurvivors,
    timeCandidates: timeCandidates.slice(0, CAPS.candidates),
    timeSurvivors,
    eventColumn,
    valueColumns,
  };
}

function samplesOf(t: RawTable, column: string): string[] {
  const out: string[] = [];
  for (const cell of t.data[t.columns.indexOf(column)]) {
    const x = cellText(cell);
    if (x !== null && !out.includes(x)) out.push(x);
    if (out.length === CAPS.samples) break;
  }
  return out;
}

export function distinctIds(t: RawTable, column: string): number {
  const ids = new Set<string>();
  for (const cell of t.data[t.columns.indexOf(column)]) {
    const k = entityKey(cell);
    if (k !== null) ids.add(k);
  }
  return ids.size;
}

/** The distinct texts of a column, code point order. */
export function valuesOf(t: RawTable, column: string): string[] {
  const seen = new Set<string>();
  for (const cell of t.data[t.columns.indexOf(column)]) {
    const x = cellText(cell);
    if (x !== null) seen.add(x);
  }
  return [...seen].sort(compareCodePoints);
}
