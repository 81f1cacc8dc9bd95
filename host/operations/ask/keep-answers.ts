// docs/reference/outcomes.md#track-record: what each answered case was told, kept for the track record when the answer is issued:
// yesno and score cases, a rank's top_k cases (the ones it told), never choice (a choice is not one
// chance of one outcome). One ask keeps a case once per model_ref: questions sharing a fit told it the
// same chance, so the first gives the chance and any gives its band and level.
import type { AnsweredCase, ToldAnswer } from '../../store/index.ts';
import type { OpContext } from '../../runtime/services.ts';
import { newId } from '../../lib/ids.ts';
import type { BuiltAnswer } from '../../core/answers.ts';

export interface BuiltQuestion {
  type: string;
  built: BuiltAnswer;
}

interface Told {
  entity_id: string;
  p: number;
  band?: unknown;
  level?: unknown;
}

/** The cases an answer told a chance: a yesno's or score's answered cases, a rank's listed ones. */
function toldCases(q: BuiltQuestion): Told[] {
  const body = q.built.body;
  if (body.state !== 'answered' || typeof body.model_ref !== 'string') return [];
  const list = q.type === 'rank' ? body.ranked : q.type === 'yesno' || q.type === 'score' ? body.cases : undefined;
  if (!Array.isArray(list)) return [];
  // unreadable cases (state not_scoreable) carry no p and were told nothing
  return (list as Told[]).filter((c) => typeof c.p === 'number');
}

/** The rows one ask keeps (pure: the ids and time are given): the readable form of toldAnswersOfAsk, which the ask uses (tested equal). */
export function answeredCasesOf(
  questions: readonly BuiltQuestion[],
  at: { workspaceId: string; namespace: string; answerId: string; issuedAt: number },
): AnsweredCase[] {
  // by model_ref, then by entity id (no key text built per case); `kept` keeps the order cases were first told
  const byModel = new Map<string, Map<string, AnsweredCase>>();
  const kept: AnsweredCase[] = [];
  for (const q of questions) {
    const modelRef = q.built.body.model_ref as string;
    let byCase = byModel.get(modelRef);
    if (!byCase) byModel.set(modelRef, (byCase = new Map()));
    for (const c of toldCases(q)) {
      const band = typeof c.band === 'string' ? c.band : null;
      const level = typeof c.level === 'string' ? c.level : null;
      const seen = byCase.get(c.entity_id);
      if (seen) {
        seen.band ??= band;
        seen.level ??= level;
        continue;
      }
      const row: AnsweredCase = {
        workspace_id: at.workspaceId,
        namespace: at.namespace,
        model_ref: modelRef,
        entity_id: c.entity_id,
        answer_id: at.answerId,
        issued_at: at.issuedAt,
        p: c.p,
        band,
        level,
      };
      byCase.set(c.entity_id, row);
      kept.push(row);
    }
  }
  return kept;
}

/**
 * answeredCasesOf grouped per model_ref as the store keeps them (store/track-record.ts toldAnswersOf of
 * its rows: tested equal), without an object per case: one ToldAnswer per model_ref, its cases in the
 * order they were first told, in the order of each model_ref's first told case.
 */
export function toldAnswersOfAsk(
  questions: readonly BuiltQuestion[],
  at: { workspaceId: string; namespace: string; answerId: string; issuedAt: number },
): ToldAnswer[] {
  const byModel = new Map<string, { answer: ToldAnswer | null; at: Map<string, number> }>();
  const out: ToldAnswer[] = [];
  for (const q of questions) {
    const modelRef = q.built.body.model_ref as string;
    let model = byModel.get(modelRef);
    if (!model) byModel.set(modelRef, (model = { answer: null, at: new Map() }));
    const told = toldCases(q);
    for (let i = 0; i < told.length; i++) {
      const c = told[i];
      const band = typeof c.band === 'string' ? c.band : null;
      const level = typeof c.level === 'string' ? c.level : null;
      let a = model.answer;
      if (a === null) {
        a = model.answer = {
          workspace_id: at.workspaceId,
          namespace: at.namespace,
          model_ref: modelRef,
          answer_id: at.answerId,
          issued_at: at.issuedAt,
          entity_ids: [],
          p: [],
          band: [],
          level: [],
        };
        out.push(a);
      }
      const seen = model.at.get(c.entity_id);
      if (seen !== undefined) {
        a.band[seen] ??= band;
        a.level[seen] ??= level;
        continue;
      }
      model.at.set(c.entity_id, a.entity_ids.length);
      a.entity_ids.push(c.entity_id);
      a.p.push(c.p);
      a.band.push(band);
      a.level.push(level);
    }
  }
  return out;
}

/** Keeps the ask's told cases: handed to the batching writer (answer-keeper.ts), so the ask does not wait on a write. */
export function keepAnswers(ctx: OpContext, namespace: string, questions: readonly BuiltQuestion[]): void {
  const answers = toldAnswersOfAsk(questions, {
    workspaceId: ctx.caller!.workspaceId,
    namespace,
    answerId: newId('an_'),
    issuedAt: ctx.services.now(),
  });
  ctx.services.keptAnswers.keep(answers);
}
