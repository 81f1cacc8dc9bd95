// A real Verdict to verify offline: a live key's answer about a 400-row record whose text is not ASCII
// (Zürich, Kraków, kündigt) and whose numbers are of several kinds, so a recipe that re-encodes text or
// numbers differently from the signer fails on it.
import { expect } from 'vitest';
import type { TestService } from '../helpers/service.ts';

export interface SignedEntry {
  verdict: any;
  signature: any;
}

/** The first Verdict of an answered `type` question from `svc`. */
export async function liveVerdict(svc: TestService, type: 'yesno' | 'score'): Promise<SignedEntry> {
  const key = await svc.liveKey();
  const rows = Array.from({ length: 400 }, (_, i) => ({
    id: `kunde_${String(i).padStart(3, '0')}`,
    stadt: ['Zürich', 'Genève', 'Malmö', 'Kraków'][i % 4],
    tenure: (i % 37) + 0.25,
    spend: ((i * 7919) % 1000) / 3,
    churned: i % 37 < 8 !== (i % 11 === 0) ? 'kündigt' : 'bleibt',
  }));
  const r = await svc.post(
    '/v1/ask',
    {
      data: { rows },
      entity_column: 'id',
      subject_kind: 'org',
      questions: { q: { type, outcome_column: 'churned', positive_values: ['kündigt'] } },
      cases: { ids: ['kunde_001', 'kunde_002', 'kunde_003'] },
    },
    key,
  );
  expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
  expect(r.body.answers.q.state).toBe('answered');
  return r.body.answers.q.verdicts[0];
}
