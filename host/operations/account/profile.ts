// svc_profile (docs/reference/models.md#profile): reads or replaces a namespace's profile: the words answers use (`says`),
// columns new fits leave out (`exclude`), columns an action cannot change (`fixed`), and chance or band
// display. Sending any of words, exclude, fixed, display replaces the whole profile (omitted fields
// reset); sending none reads it. The workspace's own profile is namespace null (decision on 4.5).
import { ServiceError } from '../../errors.ts';
import { canonicalJson } from '../../signing/index.ts';
import { sha256Hex } from '../../signing/sha256.ts';
import { parseBody, type ProfileDisplay, type ProfileWords } from '../../schemas/index.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { namespaceOf, wireNamespace } from '../models/model-links.ts';
import { FREE, type Operation } from '../operation.ts';
import { ProfileRequestSchema, ProfileResponseSchema } from './profile.schema.ts';

/** A stored profile as answers use it. */
export interface Profile {
  words: ProfileWords;
  exclude: string[];
  fixed: string[];
  display: ProfileDisplay;
  hash: string;
}

/** The profile hash Verdicts name: pf1_ + 32 hex of the canonical JSON of the profile's fields. */
export function profileHashOf(p: Omit<Profile, 'hash'>): string {
  return 'pf1_' + sha256Hex(canonicalJson(p)).slice(0, 32);
}

/** The namespace's profile, or null when it has none. */
export async function loadProfile(ctx: OpContext, namespace: string): Promise<Profile | null> {
  const rec = await ctx.services.store.getProfile(ctx.caller!.workspaceId, namespace);
  if (!rec) return null;
  return { ...(JSON.parse(rec.body) as Omit<Profile, 'hash'>), hash: rec.hash };
}

async function runProfile(ctx: OpContext, raw: unknown): Promise<OpResult> {
  const req = parseBody(ProfileRequestSchema, raw);
  const namespace = namespaceOf(req.namespace);
  const writes = req.words !== undefined || req.exclude !== undefined || req.fixed !== undefined || req.display !== undefined;
  if (!writes) {
    return { status: 200, body: { namespace: wireNamespace(namespace), profile: await loadProfile(ctx, namespace) } };
  }
  const exclude = [...new Set(req.exclude ?? [])];
  const fixed = [...new Set(req.fixed ?? [])];
  const both = fixed.find((c) => exclude.includes(c));
  if (both !== undefined) {
    throw new ServiceError(
      'invalid_request',
      `fixed: ${JSON.stringify(both)} is also in exclude; a column no fit uses cannot be kept fixed`,
      {
        field: 'fixed',
      },
    );
  }
  // The whole profile is replaced: what was omitted resets.
  const fields = { words: req.words ?? {}, exclude, fixed, display: req.display ?? 'chance' };
  const profile: Profile = { ...fields, hash: profileHashOf(fields) };
  await ctx.services.store.putProfile({
    workspace_id: ctx.caller!.workspaceId,
    namespace,
    body: JSON.stringify(fields),
    hash: profile.hash,
    updated_at: ctx.services.now(),
  });
  return { status: 200, body: { namespace: wireNamespace(namespace), profile } };
}

/** svc_profile: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const profileOperation: Operation = {
  name: 'svc_profile',
  resource: 'account',
  path: '/v1/profile',
  method: 'POST',
  auth: 'key',
  body: 'json',
  title: "Read or replace a namespace's profile",
  description:
    "Reads or replaces the profile of a namespace (omitted: the workspace's own): words (case: what a case is called; " +
    'outcome: the outcome in plain words; columns: column -> phrase), exclude (columns no new fit uses; a new fit ' +
    'gets a new model_ref), fixed (columns an action cannot change: no lever), display (chance or bands). Sending ' +
    'any of them replaces the whole profile (omitted ones reset); sending none reads it. Answers asked in the ' +
    'namespace then carry profile {hash, display, exclusions_applied} and a `says` sentence per case, and their ' +
    'Verdicts name the profile hash. Returns {namespace, profile}. ' +
    FREE,
  request: ProfileRequestSchema,
  response: ProfileResponseSchema,
  status: 200,
  pending: false,
  // additions "Read-only": a profile read; "Idempotent": profile writes (whole replace). Writes, so not read-only.
  tool: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  examples: [
    {
      name: 'words',
      summary: "Words for one customer's namespace of a product: what a case is, the outcome, a column's phrase, band display",
      value: {
        namespace: 'acme',
        words: { case: 'account', outcome: 'cancels within 30 days', columns: { support_tickets: 'support tickets' } },
        fixed: ['region'],
        display: 'bands',
      },
    },
    { name: 'read', summary: "Read the namespace's profile", value: { namespace: 'acme' } },
  ],
  run: runProfile,
};
