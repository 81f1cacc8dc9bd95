// docs/reference/ask.md#answer: `decision` (a restatement of `state`) and `next[]`, the follow-ups an answer allows, as
// data, so a caller or an agent knows what to do from the answer alone. Costs as docs/reference/limits.md#cost.
export type Decision = 'actionable' | 'not_yet' | 'refused';

export interface NextStep {
  operation: string;
  with?: Record<string, unknown>;
  cost: string;
  gives: string;
}

/** What the service knows of the ask that the answer alone does not say. */
export interface NextContext {
  /** '' = the workspace's own models. */
  namespace: string;
  /** The stored dataset or sample asked about, if any. */
  datasetId?: string;
}

const FREE = 'free';
const DECISIONS = '0.00002 USD per answered case, no fit';
const FIT_AND_DECISIONS = 'a fit (the first 1,000 each month free, then 0.01 USD) and 0.00002 USD per answered case';

export function decisionOf(state: string): Decision {
  return state === 'answered' ? 'actionable' : state === 'not_yet' ? 'not_yet' : 'refused';
}

export function nextSteps(ctx: NextContext, question: string, answer: Record<string, unknown>): NextStep[] {
  const ns = ctx.namespace === '' ? {} : { namespace: ctx.namespace };
  const ref = typeof answer.model_ref === 'string' ? answer.model_ref : undefined;
  const type = answer.type as string;
  const steps: NextStep[] = [];
  if (answer.state === 'answered') {
    if (ref !== undefined && type !== 'choice') {
      steps.push({
        operation: 'svc_ask',
        with: { ...ns, questions: { [question]: { type, model_ref: ref } } },
        cost: DECISIONS,
        gives: 'chances for new cases from this model without a fit: send them as cases.rows, each with every column in model_columns',
      });
    }
    if (Array.isArray(answer.verdicts) && answer.verdicts.length > 0) {
      steps.push({
        operation: 'svc_verify',
        cost: FREE,
        gives: 'valid when a Verdict of this answer is genuine and unaltered: send one of `verdicts` exactly as received',
      });
    }
    if (ref !== undefined) {
      steps.push({
        operation: 'svc_report_outcomes',
        with: { ...ns, model_ref: ref },
        cost: FREE,
        gives: "the model's track record: real outcomes of the cases answered here, as they become known",
      });
      steps.push({
        operation: 'svc_extend_model',
        with: { ...ns, model_ref: ref, days: 90 },
        cost: FREE,
        gives: 'keeps the model scoring past model_expires_at',
      });
    }
    return steps;
  }
  if (answer.state === 'not_yet') {
    const needs = answer.needs as { labeled_rows?: number | null } | undefined;
    const more =
      typeof needs?.labeled_rows === 'number' && needs.labeled_rows > 0 ? `${needs.labeled_rows} more labeled rows` : 'more labeled rows';
    steps.push({
      operation: 'svc_add_dataset',
      cost: FREE,
      gives: `a record with ${more} (needs says how many), to ask again on`,
    });
    steps.push({ operation: 'svc_ask', cost: FIT_AND_DECISIONS, gives: `an answer once the record holds ${more}` });
    return steps;
  }
  // refused: the same call refuses again (docs/reference/ask.md#states); another question or more columns may not
  if (ctx.datasetId !== undefined) {
    steps.push({
      operation: 'svc_preflight',
      with: { dataset_id: ctx.datasetId },
      cost: FREE,
      gives: 'what each column holds and what blocks a pattern, before changing the record or the question',
    });
  }
  steps.push({
    operation: 'svc_ask',
    cost: FIT_AND_DECISIONS,
    gives: 'an answer on a record with more columns, or to another question; the same call refuses again',
  });
  return steps;
}
