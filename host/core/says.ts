// docs/reference/models.md#profile: a namespace profile's words on answers: one sentence per case (`says`) from the words
// and the engine's own values, the chance as p_display, or with display "bands" the case's band (its
// level: the question's levels for score, the default levels otherwise) in place of the chance.
import { DEFAULT_CUTS, DEFAULT_LEVELS, type Question } from '../schemas/index.ts';
import type { ProfileDisplay, ProfileWords } from '../schemas/index.ts';

export interface AnswerProfile {
  hash: string;
  display: ProfileDisplay;
  words: ProfileWords;
  /** Columns an action cannot change: no lever, listed as fixed_by_caller. */
  fixed: ReadonlySet<string>;
  /** The `exclude` columns this answer's fits left out (none for model_ref questions and shaped records). */
  exclusionsApplied: string[];
}

interface SaysCase {
  entity_id: string;
  p?: unknown;
  p_display?: unknown;
  level?: unknown;
  position?: unknown;
  choice?: unknown;
  reasons?: unknown;
}

interface SaysReason {
  feature_label: string;
  likelihood_direction: 'higher' | 'lower';
  range?: { text?: string };
}

const MAX_REASONS = 2;

/** The band a case is shown as with display "bands". */
function bandOf(q: Question, p: number, level: unknown): string {
  if (typeof level === 'string') return level;
  let i = 0;
  while (i < DEFAULT_CUTS.length && p >= DEFAULT_CUTS[i]) i++;
  return DEFAULT_LEVELS[i].replace('_', ' ');
}

/** A reason in the profile's words: the column's phrase in place of its name, and which way it moved the chance. */
function reasonWords(words: ProfileWords, r: SaysReason): string {
  const phrase = words.columns?.[r.feature_label];
  const text = r.range?.text ?? r.feature_label;
  const said = phrase !== undefined && text.startsWith(r.feature_label) ? phrase + text.slice(r.feature_label.length) : text;
  return `${said} ${r.likelihood_direction === 'higher' ? 'raises' : 'lowers'} it`;
}

/** One sentence for a case, e.g. "Customer cust_1: cancels within 30 days, 23% (tenure 9 to 16 raises it)." */
export function saysOf(profile: AnswerProfile, q: Question, c: SaysCase): string {
  const { words } = profile;
  const noun = words.case ?? 'case';
  const who = `${noun.charAt(0).toUpperCase()}${noun.slice(1)} ${c.entity_id}${typeof c.position === 'number' ? ` (#${c.position})` : ''}`;
  const outcome = words.outcome ?? q.outcome_column ?? 'the outcome';
  let chance: string;
  if (typeof c.p === 'number') {
    chance = profile.display === 'bands' ? bandOf(q, c.p, c.level) : `${String(c.p_display)} chance`;
  } else {
    // choice: the chosen option and its chance
    const p = (c.p as Record<string, number>)[c.choice as string];
    const shown =
      profile.display === 'bands' ? bandOf(q, p, undefined) : `${(c.p_display as Record<string, string>)[c.choice as string]} chance`;
    chance = `best option ${String(c.choice)} (${shown})`;
  }
  const reasons = ((c.reasons as SaysReason[] | undefined) ?? []).slice(0, MAX_REASONS).map((r) => reasonWords(words, r));
  return `${who}: ${outcome}, ${chance}${reasons.length > 0 ? ` (${reasons.join('; ')})` : ''}.`;
}
