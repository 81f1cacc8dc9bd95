// Compares the page's answers with the service's for the same ask: same state, same model_ref, and
// every case's p equal bit for bit (Object.is), plus its level, choice, position and reasons.
type Obj = Record<string, any>;

export interface QuestionAgreement {
  question: string;
  stateEqual: boolean;
  modelRefEqual: boolean;
  cases: number;
  pEqual: number;
  detailsEqual: number;
  /** The first few cases that differ, for the page to show. */
  differences: Array<{ entity_id: string; preview: unknown; service: unknown }>;
}

export interface Agreement {
  agree: boolean;
  questions: QuestionAgreement[];
}

const samePs = (a: unknown, b: unknown): boolean => {
  if (typeof a === 'number' || typeof b === 'number') return Object.is(a, b);
  if (!a || !b || typeof a !== 'object' || typeof b !== 'object') return false;
  const ka = Object.keys(a as Obj);
  return ka.length === Object.keys(b as Obj).length && ka.every((k) => Object.is((a as Obj)[k], (b as Obj)[k]));
};

const detailsOf = (c: Obj) => JSON.stringify([c.entity_id, c.level, c.choice, c.most_likely, c.least_likely, c.position, c.reasons]);

export function compareAnswers(preview: Obj, service: Obj): Agreement {
  const questions = Object.keys(preview.answers ?? {}).map((name): QuestionAgreement => {
    const a: Obj = preview.answers[name];
    const b: Obj = service.answers?.[name] ?? {};
    const ca: Obj[] = a.cases ?? a.ranked ?? [];
    const cb: Obj[] = b.cases ?? b.ranked ?? [];
    const out: QuestionAgreement = {
      question: name,
      stateEqual: a.state === b.state,
      modelRefEqual: a.model_ref === b.model_ref && JSON.stringify(a.model_refs) === JSON.stringify(b.model_refs),
      cases: Math.max(ca.length, cb.length),
      pEqual: 0,
      detailsEqual: 0,
      differences: [],
    };
    for (let i = 0; i < out.cases; i++) {
      const x = ca[i] ?? {};
      const y = cb[i] ?? {};
      const pSame = x.entity_id === y.entity_id && samePs(x.p, y.p);
      if (pSame) out.pEqual++;
      if (detailsOf(x) === detailsOf(y)) out.detailsEqual++;
      else if (out.differences.length < 5) out.differences.push({ entity_id: x.entity_id ?? y.entity_id, preview: x, service: y });
      if (!pSame && out.differences.length < 5 && !out.differences.some((d) => d.entity_id === (x.entity_id ?? y.entity_id))) {
        out.differences.push({ entity_id: x.entity_id ?? y.entity_id, preview: x.p, service: y.p });
      }
    }
    return out;
  });
  const agree =
    questions.length > 0 && questions.every((q) => q.stateEqual && q.modelRefEqual && q.pEqual === q.cases && q.detailsEqual === q.cases);
  return { agree, questions };
}
