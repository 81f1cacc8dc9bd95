// Range texts are for people (issue "The first hour", item 12): a cut point halfway between two values
// reads 29.425, not 29.424999999999997, while the range's bounds keep the exact numbers a Verdict signs.
import { describe, expect, it } from 'vitest';
import { fmt } from '../../host/engine/model.ts';
import { fit, sampleFixture } from './helpers.ts';

describe('fmt', () => {
  it.each([
    [29.424999999999997, '29.425'],
    [0.30000000000000004, '0.3'],
    [2.6666666666666665, '2.66667'],
    [123456789, '123456789'],
    [48, '48'],
    [-3.25, '-3.25'],
    [-0, '0'],
    [1e-7, '1e-7'],
  ])('%s reads %s', (x, text) => {
    expect(fmt(x)).toBe(text);
  });
});

describe('the range of every bin of a fitted model', () => {
  it('has no float noise in its text, whether described by its training span or by its cut bounds', async () => {
    const f = sampleFixture('telco_churn', 'account_id', 'churned');
    const res = await fit(f);
    const model = res.model!;
    let described = 0;
    model.columns.forEach((c, j) => {
      if (c.kind !== 'numeric') return;
      for (let bin = 1; bin < model.section(j).nBins; bin++) {
        // outside the span (x = -Infinity): the bin's own cut bounds, which are midpoints between values
        for (const range of [model.describeBin(j, bin), model.describeBin(j, bin, -Infinity)]) {
          expect(range.text, range.text).not.toMatch(/\d\.\d*\d{7,}/);
          described++;
        }
      }
    });
    expect(described).toBeGreaterThan(20);
  });
});
