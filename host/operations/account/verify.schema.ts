// svc_verify's request and reply.
import * as v from 'valibot';
import { SignatureSchema, VerdictSchema } from '../../schemas/verdict.ts';

/** docs/reference/verdicts.md#verify: verify a Verdict; the top level is strict, the Verdict itself is not. */
export const VerifyRequestSchema = v.strictObject({ verdict: VerdictSchema, signature: SignatureSchema });

export const VerifyResponseSchema = v.looseObject({
  status: v.picklist(['valid', 'invalid_signature', 'expired', 'unknown_key']),
});

export type VerifyRequest = v.InferOutput<typeof VerifyRequestSchema>;
export type VerifyResponse = v.InferOutput<typeof VerifyResponseSchema>;
