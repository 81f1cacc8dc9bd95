// Error responses of the OpenAPI document: one application/problem+json response per HTTP status, listing
// the codes host/errors.ts gives that status (docs/reference/errors.md#problem), so a new code appears by itself.
import { PROBLEM_CODES, type ProblemCode } from '../errors.ts';
import type { Json } from './json-schema.ts';

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';
export const PROBLEM_SCHEMA_REF = '#/components/schemas/Problem';

/** Status -> the codes with that status, in the table's order. */
export function codesByStatus(): Map<number, ProblemCode[]> {
  const out = new Map<number, ProblemCode[]>();
  for (const [code, info] of Object.entries(PROBLEM_CODES) as [ProblemCode, (typeof PROBLEM_CODES)[ProblemCode]][]) {
    out.set(info.status, [...(out.get(info.status) ?? []), code]);
  }
  return new Map([...out].sort(([a], [b]) => a - b));
}

export const problemResponseName = (status: number) => `Problem${status}`;

const HEADERS: Record<number, Json> = {
  401: {
    'WWW-Authenticate': {
      description: 'Bearer realm="v1" (RFC 6750); for a rejected access token also error="invalid_token".',
      schema: { type: 'string' },
    },
  },
  405: { Allow: { description: 'The methods this path serves.', schema: { type: 'string' } } },
  503: { 'Retry-After': { description: 'Seconds to wait (issuer_unavailable).', schema: { type: 'integer' } } },
  429: {
    'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } },
    RateLimit: { description: 'Remaining requests and seconds to reset.', schema: { type: 'string' } },
    'RateLimit-Policy': { description: 'The limit and its window.', schema: { type: 'string' } },
  },
};

/** components.responses: Problem<status> for every status in the code table. */
export function problemResponses(): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [status, codes] of codesByStatus()) {
    const lines = codes.map((code) => `- \`${code}\`: ${PROBLEM_CODES[code].title}. ${PROBLEM_CODES[code].remedy}`);
    const first = codes[0];
    out[problemResponseName(status)] = {
      description: `A Problem (docs/reference/errors.md#problem). Codes with status ${status}:\n${lines.join('\n')}`,
      ...(HEADERS[status] ? { headers: HEADERS[status] } : {}),
      content: {
        [PROBLEM_MEDIA_TYPE]: {
          schema: { $ref: PROBLEM_SCHEMA_REF },
          example: {
            type: `{base_url}/problems/${first}`,
            title: PROBLEM_CODES[first].title,
            status,
            detail: 'What was wrong with this request.',
            code: first,
            remedy: PROBLEM_CODES[first].remedy,
            request_id: 'req_00000000-0000-0000-0000-000000000000',
          },
        },
      },
    };
  }
  return out;
}

/**
 * The statuses an operation can answer with a Problem: a no-key operation is never 401/403, and one that
 * reads no body is never 400/413/415/422. Path-level 404/405 are left to the transport.
 */
export function problemStatusesOf(op: { auth: 'key' | 'none'; request?: unknown }): number[] {
  const bodyStatuses = new Set([400, 413, 415, 422]);
  return [...codesByStatus().keys()].filter((status) => {
    if (status === 405) return false;
    if (op.auth === 'none' && (status === 401 || status === 403 || status === 404)) return false;
    if (!op.request && bodyStatuses.has(status)) return false;
    return true;
  });
}
