// The file `npm run bench` writes: docs/benchmark-results.md, the whole last run section by section.
// docs/benchmarks.md (the current figures beside their targets) and docs/engine-history.md (every earlier
// measurement) are kept by hand and link it. Sections measured by their own scripts (track record, uploads
// and events, the cluster) are carried over from the file as it stands.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './datasets.ts';

export const RESULTS_PATH = join(repoRoot, 'docs', 'benchmark-results.md');

/** The file as it stands, or '' before the first run. */
export function currentResults(): string {
  return existsSync(RESULTS_PATH) ? readFileSync(RESULTS_PATH, 'utf8') : '';
}

/** The section under `heading` (up to the next `## `) of the file as it stands, or [] when it has none. */
export function sectionAsItStands(heading: string): string[] {
  const text = currentResults();
  const at = text.indexOf(`\n${heading}`);
  if (at < 0) return [];
  const next = text.indexOf('\n## ', at + 1);
  return [text.slice(at + 1, next < 0 ? undefined : next).trimEnd(), ''];
}

/**
 * Markdown with its prose wrapped at `width` columns, so the file reads in any editor: paragraphs and list
 * items are wrapped (a list item's continuation indented under its text); table rows, code blocks, HTML
 * comments and headings stay as they are.
 */
export function wrapMarkdown(text: string, width = 100): string {
  const out: string[] = [];
  let code = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) code = !code;
    if (code || line.startsWith('```') || line.startsWith('|') || line.startsWith('<') || line.startsWith('#') || line.length <= width) {
      out.push(line);
      continue;
    }
    const lead = /^\s*(?:[-*] )?/.exec(line)![0];
    const indent = ' '.repeat(lead.length);
    let current = lead;
    let empty = true;
    for (const word of line.slice(lead.length).split(' ')) {
      if (!empty && current.length + 1 + word.length > width) {
        out.push(current);
        current = indent + word;
      } else current += (empty ? '' : ' ') + word;
      empty = false;
    }
    out.push(current);
  }
  return out.join('\n');
}
