// Accuracy sanity on the shared real tables (docs/benchmarks.md#quality-side-by-side): held-out AUC of the
// served model, on the engine's own entity-hash split.
import { describe, expect, it } from 'vitest';
import { loadTelco, loadWdbc } from '../../bench/datasets.ts';
import { datasetFixture, fit } from './helpers.ts';

describe('accuracy', () => {
  it('Telco churn is answered with held-out AUC >= 0.84', async () => {
    const r = await fit(datasetFixture(loadTelco()));
    expect(r.state).toBe('answered');
    expect(r.quality.auc).toBeGreaterThanOrEqual(0.84);
    expect(r.quality.validation_scheme).toBe('entity_hash');
  });

  it('WDBC is answered', async () => {
    const r = await fit(datasetFixture(loadWdbc()));
    expect(r.state).toBe('answered');
    expect(r.quality.auc).toBeGreaterThan(0.95);
  });
});
