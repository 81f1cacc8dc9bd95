// docs/reference/ask.md#response-format on a backtest: `full` keeps everything; `concise` withholds the Verdict (verdicts_withheld)
// and keeps the whole reply at page.answer_url for 24 hours, as ask does. A pending reply passes unchanged.
import type { OpContext, OpResult } from '../../runtime/services.ts';
import { resultJson } from '../../runtime/services.ts';
import { pageInfo } from '../ask/formats.ts';
import { storeAnswerText } from '../../runtime/stored-answers.ts';

export async function formatBacktest(ctx: OpContext, result: OpResult, format: 'full' | 'concise', storedId?: string): Promise<OpResult> {
  const body = result.body as Record<string, unknown>;
  if (format === 'full' || result.status !== 200 || body?.status !== 'done' || body.verdict === undefined) return result;
  const ref = await storeAnswerText(ctx, resultJson(result), storedId);
  const { verdict: _v, signature: _s, ...rest } = body;
  return {
    status: 200,
    body: { ...rest, verdicts_withheld: { count: 1, reason: 'response_format_concise' }, page: pageInfo(ctx, ref, null) },
  };
}
