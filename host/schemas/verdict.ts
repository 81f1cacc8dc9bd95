// A signed Verdict as callers send it back (svc_verify) and as answers carry it.
import * as v from 'valibot';
import { ownRecord } from './record.ts';

/** docs/reference/verdicts.md: a Verdict allows further properties; pass it on exactly as received. */
export const VerdictSchema = v.looseObject({ verdict_id: v.string(), kind: v.string() });
/** docs/reference/verdicts.md: a signature is an object of string values. */
export const SignatureSchema = ownRecord(v.string(), v.string());

export type Verdict = v.InferOutput<typeof VerdictSchema>;
export type Signature = v.InferOutput<typeof SignatureSchema>;
