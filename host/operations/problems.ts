// Problems that must outlive a call (a failed task, a replayed idempotent error) are kept as
// {code, detail, field, extra} and turned back into the same ServiceError when read.
import { ServiceError, type ProblemCode } from '../http/problem.ts';

export interface StoredProblem {
  code: ProblemCode;
  detail: string;
  field?: string;
  extra?: Record<string, unknown>;
}

export function storeProblem(err: unknown): StoredProblem {
  if (err instanceof ServiceError) return { code: err.code, detail: err.message, field: err.field, extra: err.extra };
  return { code: 'internal', detail: 'the task failed unexpectedly; retry the ask' };
}

export function reviveProblem(p: StoredProblem): ServiceError {
  return new ServiceError(p.code, p.detail, { field: p.field, extra: p.extra });
}
