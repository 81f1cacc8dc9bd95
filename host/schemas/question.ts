// docs/reference/ask.md#questions, docs/reference/ask.md rules 3-6: one question of an ask, a strict object per type plus its cross-field rules.
import * as v from 'valibot';
import { LIMITS, ModelRefSchema, NonEmptyStringSchema, QUESTION_NAME_PATTERN, objectRule } from './common.ts';
import { ownRecord } from './record.ts';

export const QUESTION_TYPES = ['yesno', 'score', 'choice', 'rank'] as const;
/** docs/reference/ask.md#questions: score defaults, lowest level first; "unlikely" is below 0.25, "very_likely" from 0.75. */
export const DEFAULT_LEVELS = ['unlikely', 'possible', 'likely', 'very_likely'] as const;
export const DEFAULT_CUTS = [0.25, 0.5, 0.75] as const;
export const DEFAULT_TOP_K = 20;

/**
 * Fields every question type takes (docs/reference/ask.md#questions). outcome_column is required unless the question names a
 * model_ref (checked below): the model's own outcome is used then (docs/reference/ask.md#by-model-ref).
 */
const common = {
  outcome_column: v.optional(NonEmptyStringSchema),
  outcome_is_desirable: v.optional(v.boolean()),
  // a number matches the column's values equal to it as numbers (core/outcome.ts): [2] on a 1/2/3 column
  positive_values: v.optional(v.pipe(v.array(v.union([v.string(), v.number()])), v.minLength(1))),
  refit_of: v.optional(ModelRefSchema),
};

/** docs/reference/ask.md#request: score from an existing model, no fit (yesno, score and rank only). */
const byModel = { model_ref: v.optional(ModelRefSchema) };

const YesNoQuestionSchema = v.strictObject({ type: v.literal('yesno'), ...common, ...byModel });

const ScoreQuestionSchema = v.strictObject({
  type: v.literal('score'),
  ...common,
  ...byModel,
  levels: v.optional(v.pipe(v.array(NonEmptyStringSchema), v.minLength(LIMITS.levelsMin), v.maxLength(LIMITS.levelsMax))),
  cuts: v.optional(
    v.pipe(v.array(v.pipe(v.number(), v.gtValue(0), v.ltValue(1))), v.minLength(LIMITS.cutsMin), v.maxLength(LIMITS.cutsMax)),
  ),
});

const ChoiceQuestionSchema = v.strictObject({
  type: v.literal('choice'),
  ...common,
  // docs/reference/ask.md#questions: optional only when option_outcomes names one outcome per option (checked below).
  outcome_column: v.optional(NonEmptyStringSchema),
  // docs/reference/ask.md#questions: choice needs outcome_is_desirable.
  outcome_is_desirable: v.boolean(),
  option_column: v.optional(NonEmptyStringSchema),
  options: v.optional(v.pipe(v.array(v.string()), v.minLength(LIMITS.optionsMin), v.maxLength(LIMITS.optionsMax))),
  option_outcomes: v.optional(
    v.pipe(ownRecord(v.string(), NonEmptyStringSchema), v.minEntries(LIMITS.optionOutcomesMin), v.maxEntries(LIMITS.optionOutcomesMax)),
  ),
});

const RankQuestionSchema = v.strictObject({
  type: v.literal('rank'),
  ...common,
  ...byModel,
  top_k: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(LIMITS.topKMax))),
});

/** docs/reference/ask.md#questions: cuts one fewer than levels and strictly ascending; a lone one is checked against the other's default. */
function checkScore(q: v.InferOutput<typeof ScoreQuestionSchema>, report: (key: string, msg: string) => void): void {
  const { levels, cuts } = q;
  if (levels && cuts && cuts.length !== levels.length - 1) {
    const need = `${levels.length} levels need ${levels.length - 1}, got ${cuts.length}`;
    report('cuts', `must have exactly one fewer item than levels (${need})`);
  } else if (levels && !cuts && levels.length !== DEFAULT_LEVELS.length) {
    const defaults = `the default cuts (${DEFAULT_CUTS.join(', ')}) need exactly ${DEFAULT_LEVELS.length} levels`;
    report('levels', `has ${levels.length} items but ${defaults}; give cuts with ${levels.length - 1} items`);
  } else if (cuts && !levels && cuts.length !== DEFAULT_CUTS.length) {
    const defaults = `the default levels (${DEFAULT_LEVELS.join(', ')}) need exactly ${DEFAULT_CUTS.length} cuts`;
    report('cuts', `has ${cuts.length} items but ${defaults}; give levels with ${cuts.length + 1} items`);
  }
  if (cuts) {
    for (let i = 1; i < cuts.length; i++) {
      if (!(cuts[i] > cuts[i - 1])) {
        report('cuts', `must be strictly ascending (item ${i}, ${cuts[i]}, is not above ${cuts[i - 1]})`);
        break;
      }
    }
  }
}

/** docs/reference/ask.md#questions: option_column with options, or option_outcomes; outcome_column unless option_outcomes. */
function checkChoice(q: v.InferOutput<typeof ChoiceQuestionSchema>, report: (key: string, msg: string) => void): void {
  const hasColumn = q.option_column !== undefined;
  const hasOutcomes = q.option_outcomes !== undefined;
  if (hasColumn && hasOutcomes) {
    report('option_outcomes', 'give either option_column with options, or option_outcomes, not both');
  } else if (hasColumn && q.options === undefined) {
    report('options', 'is required when option_column is given (the values of option_column to try)');
  } else if (!hasColumn && q.options !== undefined) {
    report('option_column', 'is required with options (the column whose values the options are)');
  } else if (!hasColumn && !hasOutcomes) {
    report('option_column', 'a choice question needs option_column with options, or option_outcomes');
  }
  if (!hasOutcomes && q.outcome_column === undefined) {
    report('outcome_column', 'is required (only a choice question with option_outcomes may omit it)');
  }
}

const QuestionVariantSchema = v.variant('type', [YesNoQuestionSchema, ScoreQuestionSchema, ChoiceQuestionSchema, RankQuestionSchema]);

/** docs/reference/ask.md#questions: one question; `type` picks the allowed fields, so levels on a yesno question is refused. */
export const QuestionSchema = v.pipe(
  QuestionVariantSchema,
  objectRule<v.InferOutput<typeof QuestionVariantSchema>>((q, report) => {
    if (q.type === 'score') checkScore(q, report);
    if (q.type === 'choice') checkChoice(q, report);
    else if (q.model_ref === undefined && q.outcome_column === undefined) {
      report('outcome_column', 'is required (unless the question names a model_ref to score with)');
    } else if (q.model_ref !== undefined && q.refit_of !== undefined) {
      report(
        'refit_of',
        'a question with model_ref scores with that model and fits nothing, so there is nothing to refit; drop one of them',
      );
    }
  }),
);

/** docs/reference/ask.md#questions/8: the question map; names are 1 to 64 of A-Z a-z 0-9 _ - (so `constructor` and `__proto__` are names too). */
export const QuestionsSchema = v.pipe(ownRecord(v.pipe(v.string(), v.regex(QUESTION_NAME_PATTERN)), QuestionSchema), v.minEntries(1));

export type Question = v.InferOutput<typeof QuestionSchema>;
export type QuestionType = Question['type'];
export type YesNoQuestion = v.InferOutput<typeof YesNoQuestionSchema>;
export type ScoreQuestion = v.InferOutput<typeof ScoreQuestionSchema>;
export type ChoiceQuestion = v.InferOutput<typeof ChoiceQuestionSchema>;
export type RankQuestion = v.InferOutput<typeof RankQuestionSchema>;
