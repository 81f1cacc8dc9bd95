// svc_verify (docs/reference/verdicts.md#verify, docs/reference/verdicts.md): is a Verdict genuine, unaltered and unexpired?
import { parseBody } from '../../schemas/index.ts';
import { verifyVerdict, type VerifyStatus } from '../../signing/index.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { FREE, READ_ONLY, type Operation } from '../operation.ts';
import { VerifyRequestSchema, VerifyResponseSchema } from './verify.schema.ts';

export async function runVerify(ctx: OpContext, body: unknown): Promise<OpResult<{ status: VerifyStatus }>> {
  parseBody(VerifyRequestSchema, body);
  // Check the values exactly as received, not the schema's copy (docs/reference/verdicts.md#verify: re-serialising breaks it).
  const { verdict, signature } = body as { verdict: unknown; signature: unknown };
  const { keyRing, now } = ctx.services;
  return { status: 200, body: { status: await verifyVerdict(keyRing, verdict, signature, now()) } };
}

/** svc_verify: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const verifyOperation: Operation = {
  name: 'svc_verify',
  resource: 'account',
  path: '/v1/verify',
  method: 'POST',
  auth: 'none',
  body: 'json',
  title: 'Verify a Verdict',
  description:
    'Checks that a Verdict is genuine, unaltered and unexpired. Pass verdict and signature exactly as svc_ask returned ' +
    'them (re-serialising breaks the signature). Returns status: valid, invalid_signature, expired or unknown_key. ' +
    'Never act on a Verdict that is not valid; an expired one is stale, so ask again. No key needed. ' +
    FREE,
  request: VerifyRequestSchema,
  response: VerifyResponseSchema,
  status: 200,
  pending: false,
  tool: READ_ONLY,
  examples: [
    {
      name: 'shape',
      summary: 'The shape of a call (this made-up Verdict reports invalid_signature)',
      value: {
        verdict: { verdict_id: '01JAAAAAAAAAAAAAAAAAAAAAAA', kind: 'answer' },
        signature: { protected: 'eyJhbGciOiJFZERTQSJ9', signature: 'AAAA', kid: 'example' },
      },
    },
  ],
  run: runVerify,
};
