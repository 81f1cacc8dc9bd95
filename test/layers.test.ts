// The layering of host/ (docs/design/house-rules.md#rules, docs/design/architecture.md#layout): imports point down only,
// program -> transports -> operations -> runtime -> core -> store / engine / table / signing / schemas / lib,
// and each third-party library has one home. A file that reaches up a layer, or a library imported outside
// its home, fails here.
//
// Runtime sits below the operations: operations use the runtime's services (tasks, leases, idempotency,
// caches, event streams), and the runtime never names an operation. What it needs of them, the task
// executors of the operation table, is handed to it by the program (host/task-thread-main.ts gives them
// to the task thread body; main.ts gives TaskThreads that entry). Core is what the preview page shares with
// the service (ask planning, cases, outcomes, scoring, answers): below the runtime, so the page never pulls
// in a service object.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const HOST = path.resolve(import.meta.dirname, '../host');

/** Layer of a host file by its folder; a higher number may import a lower one, never the reverse. */
const LAYER: Record<string, number> = {
  // data, numbers and the shared base (the error table, the config): no behaviour of the service, no
  // transport. They may use one another (the error table maps the engine's and the store's own errors).
  'errors.ts': 1,
  'config.ts': 1,
  store: 1,
  engine: 1,
  table: 1,
  signing: 1,
  schemas: 1,
  lib: 1,
  // the typed client of the REST API (what the command line speaks): it imports nothing of the service
  client: 1,
  // what the preview page shares with the service
  core: 2,
  // what every operation runs on: services, tasks and task threads, leases, caches, event streams
  runtime: 3,
  // the behaviour: the operation table and its operations
  operations: 4,
  // transports
  http: 5,
  mcp: 5,
  openapi: 5,
  web: 5,
  cli: 5,
  // the program: it starts the service and puts the operations into the runtime's task threads
  'app.ts': 6,
  'main.ts': 6,
  'task-thread-entry.mjs': 6,
  'task-thread-main.ts': 6,
};

/** Only these folders may import these packages (one home per library). */
const HOMES: Array<[RegExp, string[]]> = [
  [/^arquero$/, ['table']],
  [/^jose$/, ['signing']],
  [/^@noble\/hashes\//, ['signing']],
  [/^hyparquet(-compressors)?$/, ['table']],
  [/^(better-sqlite3|pg)$/, ['store']],
  [/^hono(\/|$)|^@hono\//, ['http', 'mcp', 'openapi', 'web', 'app.ts', 'main.ts']],
  [/^@modelcontextprotocol\//, ['mcp']],
  [/^prom-client$/, ['runtime']],
  [/^(markdown-it|swagger-ui-dist)(\/|$)/, ['web']],
];

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return filesUnder(full);
    return /\.(ts|mjs)$/.test(e.name) ? [full] : [];
  });
}

const topOf = (file: string) => path.relative(HOST, file).split(path.sep)[0];

/** Every module specifier a file imports or re-exports (type-only imports included: they still couple). */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]/gm)) out.push(m[1]);
  for (const m of text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) out.push(m[1]);
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push(m[1]);
  return out;
}

/** Whether `file` importing `target` (both absolute, under host/) points up a layer. */
function reachesUp(file: string, target: string): boolean {
  return LAYER[topOf(target)] > LAYER[topOf(file)];
}

const files = filesUnder(HOST);

describe('host/ layering', () => {
  it('knows the layer of every top-level folder and file of host/', () => {
    const tops = [...new Set(files.map(topOf))].sort();
    expect(tops.filter((t) => LAYER[t] === undefined)).toEqual([]);
  });

  it('has no import that reaches up a layer', () => {
    const upward: string[] = [];
    for (const file of files) {
      const from = topOf(file);
      for (const spec of importsOf(file)) {
        if (!spec.startsWith('.')) continue;
        const target = path.resolve(path.dirname(file), spec);
        if (!target.startsWith(HOST + path.sep)) continue; // samples/, build/: outside host
        if (reachesUp(file, target)) upward.push(`${path.relative(HOST, file)} -> ${path.relative(HOST, target)}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('imports each library only from its home', () => {
    const strays: string[] = [];
    for (const file of files) {
      const from = topOf(file);
      for (const spec of importsOf(file)) {
        for (const [pattern, homes] of HOMES) {
          if (pattern.test(spec) && !homes.includes(from)) strays.push(`${path.relative(HOST, file)} imports ${spec}`);
        }
      }
    }
    expect(strays).toEqual([]);
  });

  it('catches an upward import (the check can fail)', () => {
    const target = path.resolve(HOST, 'http/rest.ts');
    expect(LAYER[topOf(target)]).toBeGreaterThan(LAYER[topOf(path.join(HOST, 'operations/ask/ask.ts'))]);
    expect(importsOf(path.join(HOST, 'app.ts'))).toContain('./http/rest.ts');
    const at = (p: string) => path.join(HOST, p);
    expect(reachesUp(at('runtime/tasks.ts'), at('operations/index.ts'))).toBe(true);
    expect(reachesUp(at('core/plan.ts'), at('runtime/services.ts'))).toBe(true);
    expect(reachesUp(at('schemas/ask.ts'), at('operations/ask/ask.schema.ts'))).toBe(true);
    expect(reachesUp(at('lib/lru.ts'), at('core/plan.ts'))).toBe(true);
    expect(reachesUp(at('operations/ask/ask.ts'), at('runtime/tasks.ts'))).toBe(false);
    expect(importsOf(at('task-thread-entry.mjs'))).toEqual(['tsx/esm/api', './task-thread-main.ts']);
    expect(importsOf(at('task-thread-main.ts'))).toEqual(['./operations/index.ts', './runtime/task-thread.ts']);
  });
});
