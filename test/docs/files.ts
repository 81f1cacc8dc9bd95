// The repository's own text files, and the anchors its markdown pages define: what the docs tests read.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

const TEXT = /\.(ts|mts|cts|js|mjs|cjs|md|cfg|sh|yml|yaml|html|css|json)$/;
const SKIP = /^(node_modules|build|data|test-artifacts|\.git|test\/golden\/answers)(\/|$)|(^|\/)package-lock\.json$/;

/** Every text file of the repository (tracked files when it is a git checkout), relative to its root, sorted. */
export function repoFiles(): string[] {
  let files: string[];
  try {
    files = execFileSync('git', ['-C', ROOT, 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8' })
      .split('\0')
      .filter(Boolean);
  } catch {
    files = [];
    const walk = (rel: string) => {
      for (const e of fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
        const p = rel ? `${rel}/${e.name}` : e.name;
        if (SKIP.test(p)) continue;
        if (e.isDirectory()) walk(p);
        else files.push(p);
      }
    };
    walk('');
  }
  return files.filter((f) => (TEXT.test(f) || f === '.ci/run') && !SKIP.test(f) && fs.existsSync(path.join(ROOT, f))).sort();
}

/** GitHub's slug of a heading: lower case, punctuation gone, spaces to hyphens. */
export function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

const anchorCache = new Map<string, Set<string>>();

/** The anchors a markdown file defines: `<a id="...">` and its headings' slugs (repeats numbered as GitHub does). */
export function anchorsOf(file: string): Set<string> {
  let set = anchorCache.get(file);
  if (set) return set;
  set = new Set();
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  for (const m of text.matchAll(/<a id="([^"]+)"/g)) set.add(m[1]);
  const seen = new Map<string, number>();
  let code = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) code = !code;
    const h = !code && /^#{1,6} (.+)$/.exec(line);
    if (!h) continue;
    const slug = slugOf(h[1]);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    set.add(n ? `${slug}-${n}` : slug);
  }
  anchorCache.set(file, set);
  return set;
}
