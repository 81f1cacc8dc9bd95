// svc_map answers (docs/reference/map.md#map): each slot (entity, time_column, join, outcome) filled from the user's
// answer, or from its sole survivor; a slot with several survivors and no answer is
// mapping_answers_incomplete naming the slot's field; a slot with none makes the mapping `empty`.
import { ServiceError } from '../../errors.ts';
import type { Layout, Offer } from './proposal.ts';
import type { SourceAnalysis } from './sources.ts';
import type { MapAnswers } from './map.schema.ts';

export interface Slots {
  /** Per source label: its entity column and (logs) its time column. */
  entity: Map<string, string>;
  time: Map<string, string>;
  join: { table: string; right_key: string } | null;
  outcome: Offer;
}

export interface EmptySlot {
  slot: string;
  code: string;
  why: string;
}

function incomplete(field: string, detail: string, options: readonly string[]): ServiceError {
  return new ServiceError('mapping_answers_incomplete', `${field}: ${detail}`, {
    field,
    extra: { options: options.slice(0, 8) },
  });
}

/** The columns the answers give per source, checked: a known source label, one of its survivors. */
function answered(list: MapAnswers['entity'], slot: 'entity' | 'time_column', all: SourceAnalysis[]): Map<string, string> {
  const out = new Map<string, string>();
  (list ?? []).forEach((a, i) => {
    const src = all.find((s) => s.src.label === a.source);
    if (!src) {
      throw new ServiceError('invalid_request', `answers.${slot}.${i}.source: no source is labelled ${JSON.stringify(a.source)}`, {
        field: `answers.${slot}.${i}.source`,
        remedy: `Name a source by its label: ${all.map((s) => s.src.label).join(', ')}.`,
      });
    }
    const options = slot === 'entity' ? src.entitySurvivors : src.timeSurvivors;
    if (!options.includes(a.column)) {
      throw incomplete(
        `answers.${slot}.${i}.column`,
        `${JSON.stringify(a.column)} is not one of the ${slot} options of ${a.source} (${options.join(', ') || 'none'})`,
        options,
      );
    }
    out.set(a.source, a.column);
  });
  return out;
}

/** Fills every slot, or says which one is empty. */
export function fillSlots(
  answers: MapAnswers,
  all: SourceAnalysis[],
  layout: Layout,
  offers: { all: Offer[]; shown: Offer[] },
  joinKeys: string[],
): { slots: Slots } | { empty: EmptySlot } {
  const entity = answered(answers.entity, 'entity', all);
  const time = answered(answers.time_column, 'time_column', all);
  for (const a of all) {
    if (!entity.has(a.src.label)) {
      if (a.entitySurvivors.length === 0) {
        return { empty: { slot: 'entity', code: 'no_entity_column', why: `no column of ${a.src.label} names its cases without blanks` } };
      }
      if (a.entitySurvivors.length > 1) {
        throw incomplete(
          'answers.entity',
          `${a.src.label} has ${a.entitySurvivors.length} columns that could name its cases: say which`,
          a.entitySurvivors,
        );
      }
      entity.set(a.src.label, a.entitySurvivors[0]);
    }
    if (a.grain.kind === 'log' && !time.has(a.src.label)) {
      if (a.timeSurvivors.length === 0) {
        return { empty: { slot: 'time_column', code: 'no_time_column', why: `no column of ${a.src.label} holds readable times` } };
      }
      if (a.timeSurvivors.length > 1) {
        throw incomplete('answers.time_column', `${a.src.label} has ${a.timeSurvivors.length} time columns: say which`, a.timeSurvivors);
      }
      time.set(a.src.label, a.timeSurvivors[0]);
    }
  }
  let join: Slots['join'] = null;
  if (layout.mode === 'logs' && layout.table) {
    const label = layout.table.src.label;
    if (answers.join) {
      if (answers.join.table !== label) {
        throw incomplete('answers.join.table', `the table to join is ${label}, not ${JSON.stringify(answers.join.table)}`, [label]);
      }
      if (!joinKeys.includes(answers.join.right_key)) {
        throw incomplete('answers.join.right_key', `${JSON.stringify(answers.join.right_key)} does not match the log's case ids`, joinKeys);
      }
      join = { table: label, right_key: answers.join.right_key };
    } else if (joinKeys.length === 0) {
      return { empty: { slot: 'join', code: 'no_join_key', why: `no column of ${label} holds the log's case ids` } };
    } else if (joinKeys.length > 1) {
      throw incomplete('answers.join', `${joinKeys.length} columns of ${label} could match the log's case ids: say which`, joinKeys);
    } else join = { table: label, right_key: joinKeys[0] };
  }
  let outcome: Offer;
  if (answers.outcome) {
    const hit = offers.all.find((o) => o.offer_id === answers.outcome!.offer_id);
    if (!hit) {
      throw incomplete(
        'answers.outcome.offer_id',
        `${JSON.stringify(answers.outcome.offer_id)} is not an offer of these sources`,
        offers.all.map((o) => o.offer_id),
      );
    }
    outcome = hit;
  } else if (offers.shown.length === 0) {
    return { empty: { slot: 'outcome', code: 'no_outcome_offer', why: 'nothing in the sources reads as a yes/no outcome' } };
  } else if (offers.shown.length > 1) {
    const ids = offers.shown.map((o) => o.offer_id);
    throw incomplete('answers.outcome', `${ids.length} outcomes are on offer: say which with answers.outcome.offer_id`, ids);
  } else outcome = offers.shown[0];
  return { slots: { entity, time, join, outcome } };
}
