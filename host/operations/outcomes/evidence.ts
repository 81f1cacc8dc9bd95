// svc_evidence (docs/reference/outcomes.md#evidence): the outcome rate of cases acted on
// through a lever versus cases not acted on, under one model_ref. Observational, not causal.
//
// Groups, per entity of the reported outcomes:
// - acted: at least one compliant attestation; its outcome is the latest one observed at or after
//   its first compliant acted_at (an outcome seen before acting says nothing about acting);
// - not acted: no attestation at all; its outcome is its latest reported outcome;
// - entities whose attestations are all non-compliant are in neither group.
// `live` stays null until each group has MIN_GROUP cases with an outcome; the interval for the
// difference of rates is Newcombe's hybrid score interval (method 10) from two 95% Wilson intervals.
import { parseBody } from '../../schemas/index.ts';
import type { AttestationRecord, OutcomeRecord } from '../../store/index.ts';
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { namespaceOf, requireLink } from '../models/model-links.ts';
import { EXAMPLE_IDS, FREE, READ_ONLY, type Operation } from '../operation.ts';
import { EvidenceRequestSchema, EvidenceResponseSchema } from './evidence.schema.ts';

export const MIN_GROUP = 30;
export const SMALL_GROUP = 100;
const Z95 = 1.959963984540054;

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

export const EVIDENCE_NOTE =
  'Observational, not causal: cases acted on were chosen by you, not at random, so a difference in outcome rates can come from how they were chosen as well as from acting.';

/** Wilson score interval of k successes in n. */
export function wilson(k: number, n: number, z = Z95): [number, number] {
  const p = k / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [centre - half, centre + half];
}

/** Newcombe (1998) method 10: interval for p1 - p2 from the two Wilson intervals. */
export function newcombe(k1: number, n1: number, k2: number, n2: number): [number, number] {
  const p1 = k1 / n1;
  const p2 = k2 / n2;
  const [l1, u1] = wilson(k1, n1);
  const [l2, u2] = wilson(k2, n2);
  const d = p1 - p2;
  return [d - Math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + Math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)];
}

export interface EvidenceGroups {
  acted: Map<string, 0 | 1>;
  notActed: Map<string, 0 | 1>;
  entitiesWithOutcome: number;
}

/** Each entity's evidence outcome in its group (rules at the top of this file). */
export function groupEvidence(outcomes: readonly OutcomeRecord[], attestations: readonly AttestationRecord[]): EvidenceGroups {
  const firstActed = new Map<string, number>();
  const attested = new Set<string>();
  for (const a of attestations) {
    attested.add(a.entity_id);
    if (!a.compliant) continue;
    const t = firstActed.get(a.entity_id);
    if (t === undefined || a.acted_at < t) firstActed.set(a.entity_id, a.acted_at);
  }
  // listOutcomes is ordered by observed_at, then created_at: the last one kept per entity is the latest.
  const acted = new Map<string, 0 | 1>();
  const notActed = new Map<string, 0 | 1>();
  const seen = new Set<string>();
  for (const o of outcomes) {
    seen.add(o.entity_id);
    const since = firstActed.get(o.entity_id);
    if (since !== undefined) {
      if (o.observed_at >= since) acted.set(o.entity_id, o.outcome);
    } else if (!attested.has(o.entity_id)) notActed.set(o.entity_id, o.outcome);
  }
  return { acted, notActed, entitiesWithOutcome: seen.size };
}

function positives(m: Map<string, 0 | 1>): number {
  let k = 0;
  for (const y of m.values()) k += y;
  return k;
}

export async function runEvidence(ctx: OpContext, raw: unknown): Promise<OpResult> {
  const req = parseBody(EvidenceRequestSchema, raw);
  await requireLink(ctx, req.model_ref, namespaceOf(req.namespace), { use: 'record' });
  const { store } = ctx.services;
  const ws = ctx.caller!.workspaceId;
  const [outcomes, attestations] = await Promise.all([store.listOutcomes(ws, req.model_ref), store.listAttestations(ws, req.model_ref)]);
  const g = groupEvidence(outcomes, attestations);
  const n1 = g.acted.size;
  const n2 = g.notActed.size;
  let live: Record<string, unknown> | null = null;
  if (n1 >= MIN_GROUP && n2 >= MIN_GROUP) {
    const k1 = positives(g.acted);
    const k2 = positives(g.notActed);
    const [lo, hi] = newcombe(k1, n1, k2, n2);
    live = {
      n_acted: n1,
      n_not_acted: n2,
      rate_acted: round6(k1 / n1),
      rate_not_acted: round6(k2 / n2),
      diff: round6(k1 / n1 - k2 / n2),
      ci_low: round6(lo),
      ci_high: round6(hi),
      small_n: n1 < SMALL_GROUP || n2 < SMALL_GROUP,
    };
  }
  return {
    status: 200,
    body: {
      model_ref: req.model_ref,
      live,
      progress: {
        attestations: attestations.length,
        compliant_attestations: attestations.filter((a) => a.compliant).length,
        n_acted: n1,
        n_not_acted: n2,
        entities_with_outcome: g.entitiesWithOutcome,
        needed_per_group: MIN_GROUP,
      },
      note: EVIDENCE_NOTE,
    },
  };
}

/** svc_evidence: the one declaration the transports, MCP, OpenAPI and tasks are derived from. */
export const evidenceOperation: Operation = {
  name: 'svc_evidence',
  resource: 'outcomes',
  path: '/v1/evidence',
  method: 'POST',
  auth: 'key',
  body: 'json',
  title: 'Did acting work?',
  description:
    'Compares outcomes of cases acted on (svc_attest) with cases not acted on (svc_report_outcomes) for a model_ref. ' +
    '`live` stays null until each group has at least 30 cases with an outcome; `progress` says how far along it is. ' +
    'Observational, not causal. ' +
    FREE,
  request: EvidenceRequestSchema,
  response: EvidenceResponseSchema,
  status: 200,
  pending: false,
  tool: READ_ONLY,
  examples: [
    { name: 'model', summary: 'The model_ref whose cases were attested and reported on', value: { model_ref: EXAMPLE_IDS.modelRef } },
  ],
  run: runEvidence,
};
