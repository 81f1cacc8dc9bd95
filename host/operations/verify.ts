// svc_verify (spec 4.7, wire.md "Verdicts and signatures"): is a Verdict genuine, unaltered and unexpired?
import { VerifyRequestSchema, parseBody } from '../schemas/index.ts';
import { verifyVerdict, type VerifyStatus } from '../signing/index.ts';
import type { OpContext, OpResult } from '../services.ts';

export async function verifyOperation(ctx: OpContext, body: unknown): Promise<OpResult<{ status: VerifyStatus }>> {
  parseBody(VerifyRequestSchema, body);
  // Check the values exactly as received, not the schema's copy (spec 4.7: re-serialising breaks it).
  const { verdict, signature } = body as { verdict: unknown; signature: unknown };
  const { keyRing, now } = ctx.services;
  return { status: 200, body: { status: await verifyVerdict(keyRing, verdict, signature, now()) } };
}
