// svc_map proposal (docs/reference/map.md#map): what the sources can become, and the questions for the user: per slot
// (entity, time_column, join, outcome) the options that survived, asked only where two or more did.
import { ServiceError } from '../../errors.ts';
import { cellText, isMissing } from '../../table/typing.ts';
import { columnsOf, positivesOf, screenColumn, type Column } from '../datasets/suggest.ts';
import { CAPS, distinctIds, valuesOf, type SourceAnalysis } from './sources.ts';

export type OfferKind = 'column' | 'event_type' | 'outcome_time' | 'lapsed';

export interface Offer {
  offer_id: string;
  kind: OfferKind;
  code: string | null;
  why: string;
  /** The source it reads (label), and what of it. */
  source: string;
  column?: string;
  value?: string;
  positives?: string[];
}

/** The layout of the sources (docs/reference/map.md#map: a lone table, or one or two logs plus an optional table). */
export interface Layout {
  mode: 'table' | 'logs';
  logs: SourceAnalysis[];
  table: SourceAnalysis | null;
}

export function layoutOf(all: SourceAnalysis[]): Layout {
  const logs = all.filter((a) => a.grain.kind === 'log');
  const tables = all.filter((a) => a.grain.kind === 'table');
  if (all.length === 1 && tables.length === 1) return { mode: 'table', logs: [], table: tables[0] };
  if (logs.length === 0 || tables.length > 1) {
    const detail =
      logs.length === 0
        ? `none of the ${all.length} sources reads as an event log (many timed rows per case)`
        : `${tables.length} sources read as tables (${tables.map((t) => t.src.label).join(', ')})`;
    throw new ServiceError('invalid_request', `sources: ${detail}; map a lone table, or one or two event logs plus at most one table`, {
      field: 'sources',
      remedy: 'Send one table alone, or one or two event logs (an id column that repeats and a date column) plus at most one table.',
    });
  }
  return { mode: 'logs', logs, table: tables[0] ?? null };
}

/** Lone table offers: every two-valued column (and one value with blanks), screened as svc_suggest does. */
function tableOffers(a: SourceAnalysis, entity: string | undefined): Offer[] {
  const t = a.src.table;
  const columns = columnsOf(t, [entity]);
  const out: Offer[] = [];
  for (const col of columns) {
    const n = col.values.length;
    if (!(n === 2 || (n === 1 && col.res.missing > 0))) continue;
    const positives = positivesOf(col);
    const s = screenColumn(t, columns, col, positives);
    out.push({
      offer_id: `column:${a.src.label}:${col.name}`,
      kind: 'column',
      code: s.code,
      why:
        `${col.name} says ${positives.join('/')} on ${s.positives} of ${s.labeled} labeled rows` +
        (s.definedBy.length ? `; ${s.definedBy.join(', ')} nearly restate it` : ''),
      source: a.src.label,
      column: col.name,
      positives,
    });
  }
  return out;
}

/** Log offers: lapsed per log, each event type, and a table's dates as outcome times. */
function logOffers(layout: Layout, entities: Map<string, string>): Offer[] {
  const out: Offer[] = [];
  for (const log of layout.logs) {
    const label = log.src.label;
    out.push({
      offer_id: `lapsed:${label}`,
      kind: 'lapsed',
      code: null,
      why: `no ${label} event in the horizon after a reading`,
      source: label,
    });
    if (log.eventColumn !== null) {
      const t = log.src.table;
      const counts = new Map<string, number>();
      for (const cell of t.data[t.columns.indexOf(log.eventColumn)]) {
        const x = cellText(cell);
        if (x !== null) counts.set(x, (counts.get(x) ?? 0) + 1);
      }
      for (const type of valuesOf(t, log.eventColumn)) {
        out.push({
          offer_id: `event:${label}:${type}`,
          kind: 'event_type',
          code: null,
          why: `a ${type} event (${log.eventColumn}) in the horizon after a reading; ${counts.get(type)} in the log`,
          source: label,
          column: log.eventColumn,
          value: type,
        });
      }
    }
  }
  const table = layout.table;
  if (table) {
    const key = entities.get(table.src.label);
    for (const c of table.timeCandidates) {
      if (c.column === key) continue;
      const t = table.src.table;
      const cells = t.data[t.columns.indexOf(c.column)];
      const filled = cells.filter((x) => !isMissing(x)).length;
      out.push({
        offer_id: `time:${table.src.label}:${c.column}`,
        kind: 'outcome_time',
        code: null,
        why: `${c.column} of ${table.src.label} says when the outcome happened (${filled} of ${t.rowCount} rows have one)`,
        source: table.src.label,
        column: c.column,
      });
    }
  }
  return out;
}

/** All offers, then those matching the user's words (a sole match is proposed alone). */
export function offersOf(
  layout: Layout,
  entities: Map<string, string>,
  words: readonly string[] | undefined,
): { all: Offer[]; shown: Offer[] } {
  const all = layout.mode === 'table' ? tableOffers(layout.table!, entities.get(layout.table!.src.label)) : logOffers(layout, entities);
  // offers the screen passes first, then in the order made
  const ordered = [...all].sort((a, b) => Number(a.code !== null) - Number(b.code !== null));
  let shown = ordered;
  if (words && words.length > 0) {
    const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, ' ');
    const stems = words
      .map((w) =>
        norm(w)
          .trim()
          .replace(/(?:ed|ing|s)$/, ''),
      )
      .filter((w) => w.length > 0);
    const matching = ordered.filter((o) => {
      const text = norm(`${o.kind} ${o.column ?? ''} ${o.value ?? ''}`);
      return stems.some((w) => text.includes(w));
    });
    if (matching.length > 0) shown = matching;
  }
  return { all: ordered, shown: shown.slice(0, CAPS.candidates) };
}

/** Join key candidates of the table: its id columns holding at least half of the first log's case ids. */
export function joinCandidates(layout: Layout, entities: Map<string, string>): string[] {
  if (!layout.table || layout.logs.length === 0) return [];
  const log = layout.logs[0];
  const logEntity = entities.get(log.src.label);
  if (logEntity === undefined) return [];
  const ids = new Set(valuesOf(log.src.table, logEntity));
  const t = layout.table.src.table;
  return layout.table.entitySurvivors.filter((c) => {
    const vals = valuesOf(t, c);
    const hit = vals.filter((x) => ids.has(x)).length;
    return vals.length > 0 && hit * 2 >= Math.min(vals.length, ids.size);
  });
}

export interface ProposalParts {
  layout: Layout;
  offers: { all: Offer[]; shown: Offer[] };
  joinKeys: string[];
}

/** The proposal body (docs/reference/map.md#map "proposal" rows); lone table extras at the top level (decision 4.11). */
export function proposalBody(parts: ProposalParts, all: SourceAnalysis[]): Record<string, unknown> {
  const { layout, offers, joinKeys } = parts;
  const questions: Record<string, unknown>[] = [];
  const sources = all.map((a) => {
    const needsTime = a.grain.kind === 'log';
    const blocking: string[] = [];
    if (a.entitySurvivors.length === 0) blocking.push('no_entity_column');
    if (needsTime && a.timeSurvivors.length === 0) blocking.push('no_time_column');
    if (a.entitySurvivors.length > 1) {
      questions.push({
        slot: 'entity',
        source: a.src.label,
        options: a.entitySurvivors.slice(0, CAPS.candidates),
        why: `${a.entitySurvivors.length} columns of ${a.src.label} could name its cases`,
      });
    }
    if (needsTime && a.timeSurvivors.length > 1) {
      questions.push({
        slot: 'time_column',
        source: a.src.label,
        options: a.timeSurvivors.slice(0, CAPS.candidates),
        why: `${a.timeSurvivors.length} columns of ${a.src.label} hold times`,
      });
    }
    // docs/reference/map.md#map: with logs, a table's numbers, flags and text are as of its export, not of each reading
    const excluded =
      layout.mode === 'logs' && a === layout.table
        ? a.src.table.columns
            .filter((c) => !a.entitySurvivors.includes(c) && !a.timeCandidates.some((t) => t.column === c))
            .map((c) => ({ column: c, why: 'as_of_export' }))
        : [];
    return {
      ...a.src.ref,
      label: a.src.label,
      rows: a.src.table.rowCount,
      grain: a.grain,
      entity: { candidates: a.entityCandidates, multiplicity: a.entitySurvivors.length },
      time_column: { candidates: a.timeCandidates, multiplicity: a.timeSurvivors.length },
      resolutions: a.resolutions,
      columns_omitted: a.columnsOmitted,
      blocking,
      excluded_columns: excluded,
    };
  });
  if (layout.table && layout.mode === 'logs' && joinKeys.length > 1) {
    questions.push({
      slot: 'join',
      source: layout.table.src.label,
      options: joinKeys,
      why: `${joinKeys.length} columns of ${layout.table.src.label} could match the log's case ids`,
    });
  }
  if (offers.shown.length > 1) {
    questions.push({
      slot: 'outcome',
      options: offers.shown.map((o) => o.offer_id),
      why: `${offers.shown.length} outcomes are on offer: which is the one to predict?`,
    });
  }
  const body: Record<string, unknown> = {
    status: 'proposed',
    sources,
    outcomes: {
      offers: offers.shown.map(({ offer_id, kind, code, why }) => ({ offer_id, kind, code, why })),
      multiplicity: offers.shown.length,
    },
    join:
      layout.mode === 'logs' && layout.table
        ? { table: layout.table.src.label, key_candidates: joinKeys.map((k) => ({ right_key: k })), multiplicity: joinKeys.length }
        : null,
    questions,
  };
  if (layout.mode === 'table') Object.assign(body, tableExtras(layout.table!, offers.shown));
  return body;
}

/** A lone table's fitness (for a sole offer), advisory sentences and case_variants (docs/reference/map.md#map, docs/reference/README.md). */
function tableExtras(a: SourceAnalysis, shown: Offer[]): Record<string, unknown> {
  const t = a.src.table;
  const entity = a.entitySurvivors[0];
  const columns: Column[] = columnsOf(t, [entity]);
  let fitness: Record<string, unknown> | null = null;
  if (shown.length === 1 && shown[0].column !== undefined) {
    const col = columns.find((c) => c.name === shown[0].column)!;
    const s = screenColumn(t, columns, col, shown[0].positives!);
    const usable = columns.filter(
      (c) => c !== col && !s.definedBy.includes(c.name) && ['numeric', 'category', 'yesno'].includes(c.res.kind) && !c.res.ambiguous,
    ).length;
    fitness = {
      labeled_rows: s.labeled,
      positives: s.positives,
      negatives: s.labeled - s.positives,
      usable_predictors: usable,
      positives_per_predictor: usable > 0 ? Math.round((s.positives / usable) * 100) / 100 : null,
    };
  }
  const advisory: string[] = [];
  const caseVariants: Record<string, string[]> = {};
  for (const c of columns) {
    if (c.res.ambiguous?.why === 'case_variants') {
      caseVariants[c.name] = c.res.ambiguous.examples;
      advisory.push(`\`${c.name}\` has spellings that differ only in case (${c.res.ambiguous.examples.join('; ')}); they are not merged.`);
    } else if (c.res.ambiguous) advisory.push(`\`${c.name}\` holds dates whose day/month order is unclear: write them as YYYY-MM-DD.`);
    else if (c.res.kind === 'date') advisory.push(`\`${c.name}\` holds dates, which are not used as predictors.`);
  }
  if (entity !== undefined && distinctIds(t, entity) < t.rowCount) {
    advisory.push(`Some \`${entity}\` values have several rows: one row should be one case.`);
  }
  return { fitness, advisory, case_variants: caseVariants };
}
