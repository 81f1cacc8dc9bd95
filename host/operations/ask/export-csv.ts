// docs/reference/ask.md#request-fields `export: "csv"`: every case of every question (a rank's every ranked case, not only its
// top_k) as one CSV row per question per case, written to the store part by part as the rows are made, so
// a 100,000-case export never sits whole in memory. Streamed back by GET /v1/exports/{token} (2.11).
import type { OpContext } from '../../runtime/services.ts';
import { AnswerWriter, answerLink } from '../../runtime/stored-answers.ts';
import type { BuiltAnswer } from '../../core/answers.ts';

const HEADER = [
  'question',
  'type',
  'entity_id',
  'state',
  'p',
  'p_display',
  'level',
  'choice',
  'position',
  'reason_1',
  'reason_2',
  'reason_3',
  'reason_4',
  'not_scoreable',
];

/** RFC 4180: a field with a comma, quote, CR or LF (or edge spaces) is quoted, quotes doubled. */
export function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return /[",\r\n]|^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

interface ExportReason {
  feature_label: string;
  likelihood_direction: string;
  strength: string;
  range?: { text?: string };
}

/** A reason in one cell: its range in words, then which way and how strongly it moved the chance. */
function reasonCell(r: ExportReason | undefined): string {
  if (!r) return '';
  return `${r.range?.text ?? r.feature_label} (${r.likelihood_direction}, ${r.strength})`;
}

function rowOf(question: string, type: string, c: Record<string, unknown>): string {
  const choice = typeof c.choice === 'string' ? c.choice : undefined;
  // choice: the chosen option's chance (each option's is in the answer)
  const p = typeof c.p === 'object' && c.p !== null && choice !== undefined ? (c.p as Record<string, number>)[choice] : c.p;
  const shown =
    typeof c.p_display === 'object' && c.p_display !== null && choice !== undefined
      ? (c.p_display as Record<string, string>)[choice]
      : c.p_display;
  const reasons = (c.reasons as ExportReason[] | undefined) ?? [];
  const cells = [
    question,
    type,
    c.entity_id,
    c.state ?? 'answered',
    p,
    shown,
    c.level,
    choice,
    c.position,
    reasonCell(reasons[0]),
    reasonCell(reasons[1]),
    reasonCell(reasons[2]),
    reasonCell(reasons[3]),
    c.not_scoreable,
  ];
  return cells.map(csvField).join(',') + '\r\n';
}

/** Writes the export of these answers and returns the answer's `export` object. */
export async function writeExport(
  ctx: OpContext,
  answers: ReadonlyArray<{ name: string; type: string; built: BuiltAnswer }>,
): Promise<{ format: 'csv'; results_url: string; expires_at: string }> {
  const w = new AnswerWriter(ctx, 'csv');
  await w.add(HEADER.join(',') + '\r\n');
  for (const { name, type, built } of answers) {
    if (!built.allCases) continue;
    for (const c of built.allCases()) {
      const due = w.add(rowOf(name, type, c));
      if (due) await due;
    }
  }
  const ref = await w.finish();
  return {
    format: 'csv',
    results_url: answerLink(ctx.services, ctx.caller!.workspaceId, ref),
    expires_at: new Date(ref.expiresAt).toISOString(),
  };
}
