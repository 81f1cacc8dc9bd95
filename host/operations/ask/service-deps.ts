// The service's AnswerDeps (answers.ts): its engine, its signing key ring and its lever-token secret.
import type { Services } from '../../runtime/services.ts';
import { signLeverToken } from '../../signing/lever-token.ts';
import type { AnswerDeps } from '../../core/answers.ts';
import { makeVerdict } from '../../core/verdicts.ts';

export function answerDepsOf(services: Services): AnswerDeps {
  return {
    engine: services.engine,
    sign: (v) => makeVerdict(services, v),
    leverToken: (g) => signLeverToken(services.secrets, g),
  };
}
