// answeredCasesOf (host/operations/ask/keep-answers.ts): the cases one ask keeps for the track record, once
// per model_ref and case, in the order they were first told, with band and level from any question.
import { describe, expect, it } from 'vitest';
import { answeredCasesOf, toldAnswersOfAsk, type BuiltQuestion } from '../../../host/operations/ask/keep-answers.ts';
import { toldAnswersOf } from '../../../host/store/index.ts';

const q = (type: string, model_ref: string, cases: Array<Record<string, unknown>>, list = 'cases'): BuiltQuestion => ({
  type,
  built: { body: { state: 'answered', model_ref, [list]: cases }, billable: cases.length, asked: cases.length },
});
const at = { workspaceId: 'ws_1', namespace: 'ns', answerId: 'an_1', issuedAt: 1000 };

describe('answeredCasesOf', () => {
  it('keeps a case once per model_ref, first told first, band and level from a later question', () => {
    const questions = [
      q('yesno', 'mr_a', [
        { entity_id: 'c1', p: 0.1 },
        { entity_id: 'c2', p: 0.2 },
        { entity_id: 'c1', p: 0.9, band: 'usual' }, // a repeated id: the first chance, a band from the repeat
      ]),
      q('yesno', 'mr_b', [{ entity_id: 'c1', p: 0.3 }]),
      q('score', 'mr_a', [
        { entity_id: 'c2', p: 0.2, level: 'likely' },
        { entity_id: 'c3', p: 0.4, level: 'unlikely' },
        { entity_id: 'c4', state: 'not_scoreable' }, // told nothing
      ]),
      q('rank', 'mr_b', [{ entity_id: 'c5', p: 0.5 }], 'ranked'),
      q('choice', 'mr_c', [{ entity_id: 'c6', p: 0.6 }]), // never kept
    ];
    const rows = answeredCasesOf(questions, at);
    const base = { workspace_id: 'ws_1', namespace: 'ns', answer_id: 'an_1', issued_at: 1000 };
    expect(rows).toEqual([
      { ...base, model_ref: 'mr_a', entity_id: 'c1', p: 0.1, band: 'usual', level: null },
      { ...base, model_ref: 'mr_a', entity_id: 'c2', p: 0.2, band: null, level: 'likely' },
      { ...base, model_ref: 'mr_b', entity_id: 'c1', p: 0.3, band: null, level: null },
      { ...base, model_ref: 'mr_a', entity_id: 'c3', p: 0.4, band: null, level: 'unlikely' },
      { ...base, model_ref: 'mr_b', entity_id: 'c5', p: 0.5, band: null, level: null },
    ]);
    // what the ask hands the keeper: the same rows grouped per model_ref, without an object per case
    expect(toldAnswersOfAsk(questions, at)).toEqual(toldAnswersOf(rows));
    expect(toldAnswersOfAsk(questions, at).map((a) => a.entity_ids)).toEqual([
      ['c1', 'c2', 'c3'],
      ['c1', 'c5'],
    ]);
  });

  it('groups a model_ref whose first question told nothing after the ones that told first, as the rows do', () => {
    const questions = [
      q('yesno', 'mr_a', [{ entity_id: 'c1', state: 'not_scoreable' }]),
      q('yesno', 'mr_b', [{ entity_id: 'c1', p: 0.3 }]),
      q('score', 'mr_a', [{ entity_id: 'c2', p: 0.2, level: 'likely' }]),
      { type: 'yesno', built: { body: { state: 'refused', model_ref: 'mr_c', cases: [] }, billable: 0, asked: 1 } },
    ];
    const rows = answeredCasesOf(questions, at);
    expect(toldAnswersOfAsk(questions, at)).toEqual(toldAnswersOf(rows));
    expect(toldAnswersOf(rows).map((a) => a.model_ref)).toEqual(['mr_b', 'mr_a']);
  });
});
