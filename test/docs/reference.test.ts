// docs/reference stays true to the service: the table of problems is host/errors.ts's own, the MCP page's
// hints are the operation table's, and every route of the operation table is documented.
// UPDATE_DOCS=1 rewrites the generated table of problems in docs/reference/errors.md.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROBLEM_CODES } from '../../host/errors.ts';
import { OPERATIONS, toolOperations } from '../../host/operations/index.ts';
import { ROOT } from './files.ts';

const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/</g, '&lt;');

/** The table of every problem code, by status then code, as docs/reference/errors.md holds it. */
function problemsTable(): string {
  const rows = Object.entries(PROBLEM_CODES).sort((a, b) => a[1].status - b[1].status || a[0].localeCompare(b[0]));
  return [
    '| status | code | title | remedy |',
    '|---|---|---|---|',
    ...rows.map(([code, i]) => `| ${i.status} | <a id="${code}"></a>\`${code}\` | ${cell(i.title)} | ${cell(i.remedy)} |`),
  ].join('\n');
}

describe('docs/reference', () => {
  it("lists every problem code with the service's own status, title and remedy", () => {
    const file = 'docs/reference/errors.md';
    const text = read(file);
    const start = '<!-- problems:start -->\n';
    const end = '\n<!-- problems:end -->';
    const a = text.indexOf(start);
    const z = text.indexOf(end);
    expect(a, 'errors.md has the problems:start / problems:end markers').toBeGreaterThan(0);
    const want = problemsTable();
    if (process.env.UPDATE_DOCS) fs.writeFileSync(path.join(ROOT, file), text.slice(0, a + start.length) + want + text.slice(z));
    else expect(text.slice(a + start.length, z), 'run UPDATE_DOCS=1 npx vitest run test/docs to rewrite it').toBe(want);
  });

  it("gives every MCP tool the operation table's hints", () => {
    const text = read('docs/reference/mcp.md');
    for (const op of toolOperations(OPERATIONS)) {
      const row = new RegExp(`^\\| \`${op.name}\` \\|([^|]*)\\|([^|]*)\\|([^|]*)\\|([^|]*)\\|`, 'm').exec(text);
      expect(row, `${op.name} has a row in mcp.md`).not.toBeNull();
      const [readOnly, destructive, idempotent, openWorld] = row!.slice(1).map((c) => c.trim().startsWith('yes'));
      expect({ readOnly, destructive, idempotent, openWorld }, op.name).toEqual({
        readOnly: op.tool!.readOnlyHint,
        destructive: op.tool!.destructiveHint,
        idempotent: op.tool!.idempotentHint,
        openWorld: op.tool!.openWorldHint,
      });
    }
  });

  it('documents every route of the operation table', () => {
    const reference = fs
      .readdirSync(path.join(ROOT, 'docs/reference'))
      .map((f) => read(`docs/reference/${f}`))
      .join('\n');
    for (const op of OPERATIONS) {
      const route = op.path.replace(/\{[^}]*\}/g, '').replace(/:(\w+)/g, '{$1}');
      expect(reference.includes(route) || reference.includes(`\`${op.name}\``), `${op.method} ${op.path} (${op.name})`).toBe(true);
    }
  });
});
