// The repository stands on its own: no file names a path outside it, or cites a document it does not hold
// (the contract's section numbers, design notes kept elsewhere, the tracker's issues), and every page it
// points to (a markdown link, or a docs/...md#anchor in a comment) exists with that anchor.
// citation-rewrite: skip (this file spells the forms it refuses)
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, repoFiles, ROOT } from './files.ts';

const SELF = 'test/docs/';

/** Citations of documents that are not in the repository, each with what it is. */
const OUTSIDE: Array<[RegExp, string]> = [
  [/\.\.\/shared\b|\/work\/shared\b/g, 'a path to the shared folder beside the repository'],
  [/\b[Ss]pec \d+(\.\d+)?/g, 'a section number of the contract (cite docs/reference/)'],
  [/\b[Aa]dditions \d+(\.\d+)?/g, 'a section number of the contract 1.1 additions (cite docs/reference/)'],
  [/\b(interface|additions)\.md\b/g, 'the contract file (cite docs/reference/)'],
  [
    /(?<![\w/.-]|\]\()(wire|engine|architecture|style|samples|toolchain|DEVELOPERS|BENCHMARKS)\.md\b/g,
    'a design note kept outside (cite docs/design/ or docs/)',
  ],
  [/(?<![\w/#.-])[Ii]ssue \d+/g, "the tracker's issue (cite the decision record or the docs page that holds the reason)"],
];

/** Every citation of something outside the repository in `files`, as "file:line: text (what)". */
function outsideCitations(files: string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    if (file.startsWith(SELF)) continue;
    const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      for (const [re, what] of OUTSIDE) for (const m of line.matchAll(re)) found.push(`${file}:${i + 1}: ${m[0]} (${what})`);
      // A relative path that climbs out of the repository.
      for (const m of line.matchAll(/(?<![\w.])((?:\.\.\/)+)[\w.-]+/g)) {
        const to = path.resolve(path.dirname(path.join(ROOT, file)), m[0]);
        if (path.relative(ROOT, to).startsWith('..')) found.push(`${file}:${i + 1}: ${m[0]} (a path outside the repository)`);
      }
    });
  }
  return found;
}

/** Every page reference that does not resolve: markdown links in .md files, docs/...md(#anchor) anywhere. */
function brokenReferences(files: string[]): string[] {
  const broken: string[] = [];
  const check = (file: string, line: number, target: string, anchor: string | undefined, shown: string) => {
    const rel = path.relative(ROOT, target).split(path.sep).join('/');
    if (!fs.existsSync(target)) broken.push(`${file}:${line}: ${shown} (no such file)`);
    else if (anchor && rel.endsWith('.md') && !anchorsOf(rel).has(anchor)) broken.push(`${file}:${line}: ${shown} (no anchor #${anchor})`);
  };
  for (const file of files) {
    if (file.startsWith(SELF)) continue;
    const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
    let code = false;
    lines.forEach((line, i) => {
      if (file.endsWith('.md')) {
        if (line.startsWith('```')) code = !code;
        if (code) return;
        for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
          const href = m[1];
          if (/^(https?:|mailto:)/.test(href)) continue;
          const [p, anchor] = href.split('#');
          const target = p ? path.resolve(path.dirname(path.join(ROOT, file)), p) : path.join(ROOT, file);
          check(file, i + 1, target, anchor, href);
        }
      }
      for (const m of line.matchAll(/(?<![\w/.-]|\]\()(docs\/(?:[\w-]+\/)*[\w-][\w.-]*\.md)(?:#([\w-]+))?/g)) {
        check(file, i + 1, path.join(ROOT, m[1]), m[2], m[0]);
      }
    });
  }
  return broken;
}

const files = repoFiles();
const isDoc = (f: string) => f.startsWith('docs/') || f === 'README.md' || f.startsWith('test/readme/') || f.startsWith('.ci/');

describe('the repository stands on its own', () => {
  it('reads a real set of files', () => {
    expect(files).toContain('README.md');
    expect(files).toContain('docs/reference/ask.md');
    expect(files.filter((f) => f.startsWith('host/')).length).toBeGreaterThan(50);
  });

  it('docs, the README and the snippet tests cite nothing outside the repository', () => {
    expect(outsideCitations(files.filter(isDoc))).toEqual([]);
  });

  it('no file names a path outside the repository or cites a document it does not hold', () => {
    expect(outsideCitations(files)).toEqual([]);
  });

  it('every link and docs/ reference points at a file and anchor that exist', () => {
    expect(brokenReferences(files)).toEqual([]);
  });

  it('catches what it is meant to catch', () => {
    const tmp = 'test-artifacts/docs-self-check.md';
    fs.mkdirSync(path.join(ROOT, 'test-artifacts'), { recursive: true });
    fs.writeFileSync(
      path.join(ROOT, tmp),
      [
        'see ../shared/spec/interface.md and ' + 'spec 3.2, wire.md "Problems", ' + 'issue 21',
        '[x](docs/nowhere.md) [y](../docs/reference/ask.md#nowhere)',
      ].join('\n'),
    );
    try {
      expect(outsideCitations([tmp]).length).toBeGreaterThanOrEqual(5);
      expect(brokenReferences([tmp])).toHaveLength(2);
    } finally {
      fs.rmSync(path.join(ROOT, tmp));
    }
  });

  // The front pages stay short enough to read at once: the README is the way in, docs/benchmarks.md the
  // current figures (every experiment goes to docs/engine-history.md, every method to benchmark-results.md).
  it.each([
    ['README.md', 10 * 1024],
    ['docs/benchmarks.md', 15 * 1024],
  ])('%s stays under its size budget', (file, budget) => {
    expect(fs.statSync(path.join(ROOT, file)).size).toBeLessThan(budget);
  });
});
