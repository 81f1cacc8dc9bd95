// One source for the engine ABI (docs/design/house-rules.md#rules): assembly/abi.ts is the source, host/engine/abi.ts
// its mirror. This fails when a value differs, when either side has a constant the other lacks, or when
// the exports of build/engine.wasm and the host's EngineExports disagree; the host refuses at load an
// engine whose metric count is not its own.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import * as host from '../../host/engine/abi.ts';
import { loadEngine, type EngineModule } from '../../host/engine/index.ts';
import { compileEngine } from '../../host/engine/wasm.ts';
import { EngineError } from '../../host/engine/errors.ts';

const engineAbiText = readFileSync(new URL('../../assembly/abi.ts', import.meta.url), 'utf8');
const hostAbiText = readFileSync(new URL('../../host/engine/abi.ts', import.meta.url), 'utf8');

/** `export const NAME: type = literal;` lines of assembly/abi.ts; any other export line is an error. */
function engineConstants(): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of engineAbiText.split('\n')) {
    if (!line.startsWith('export')) continue;
    const m = /^export const ([A-Z][A-Z0-9_]*): (?:i32|u8|f64) = (-?[0-9][0-9.eE+-]*);/.exec(line);
    if (!m) throw new Error(`assembly/abi.ts: not a plain numeric constant, the ABI check cannot read it: ${line}`);
    const value = Number(m[2]);
    if (!Number.isFinite(value)) throw new Error(`assembly/abi.ts: ${m[1]} = ${m[2]} is not a number`);
    out.set(m[1], value);
  }
  return out;
}

const engine = engineConstants();
const lower = (s: string) => s.toLowerCase();
const withPrefix = (prefix: string) => [...engine].filter(([name]) => name.startsWith(prefix));

describe('host/engine/abi.ts mirrors assembly/abi.ts', () => {
  it('reads a constant of every group from the engine source', () => {
    for (const p of ['KIND_', 'ERR_', 'STATE_', 'R_', 'EXCL_', 'ROW_', 'M_', 'COL_']) expect(withPrefix(p).length).toBeGreaterThan(0);
    expect(engine.get('METRIC_COUNT')).toBeGreaterThan(0);
  });

  it.each([...engine])('the host carries %s = %s', (name, value) => {
    const h = host as unknown as Record<string, unknown>;
    let m: RegExpExecArray | null;
    if ((m = /^M_(.+)$/.exec(name))) expect(host.M[m[1] as keyof typeof host.M]).toBe(value);
    else if ((m = /^STATE_(.+)$/.exec(name))) expect(host.STATE_NAMES[value]).toBe(lower(m[1]));
    else if ((m = /^R_(.+)$/.exec(name))) expect(host.REASON_BITS).toContainEqual([value, lower(m[1])]);
    else expect(h[name]).toBe(value);
  });

  it('has no constant of its own: every host value names an engine constant', () => {
    for (const [name, value] of Object.entries(host)) {
      if (name === 'M') {
        expect(Object.keys(host.M).sort()).toEqual(
          withPrefix('M_')
            .map(([n]) => n.slice(2))
            .sort(),
        );
        expect(Object.keys(host.M)).toHaveLength(host.METRIC_COUNT);
      } else if (name === 'STATE_NAMES') expect(host.STATE_NAMES).toHaveLength(withPrefix('STATE_').length);
      else if (name === 'REASON_BITS') expect(host.REASON_BITS).toHaveLength(withPrefix('R_').length);
      else {
        expect(typeof value, `host/engine/abi.ts exports ${name}, which is not a number`).toBe('number');
        expect(engine.get(name), `host/engine/abi.ts exports ${name}, which assembly/abi.ts does not declare`).toBe(value);
      }
    }
  });

  it('lists in EngineExports exactly the exports of build/engine.wasm', async () => {
    const mod = await loadEngine();
    const body = /export interface EngineExports \{([\s\S]*?)\n\}/.exec(hostAbiText)![1];
    const declared = [...body.matchAll(/^ {2}(\w+)[(:]/gm)].map((x) => x[1]).sort();
    const actual = WebAssembly.Module.exports(mod.module);
    expect(actual.map((e) => e.name).sort()).toEqual(declared);
    for (const e of actual) expect(e.kind).toBe(e.name === 'memory' ? 'memory' : 'function');
  });
});

/** A minimal wasm module whose exports are functions returning the given small i32 constants. */
function moduleReturning(fns: Record<string, number>): Uint8Array {
  const names = Object.keys(fns);
  const section = (id: number, content: number[]) => [id, content.length, ...content];
  const bytes = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  bytes.push(...section(1, [1, 0x60, 0, 1, 0x7f])); // one type: () -> i32
  bytes.push(...section(3, [names.length, ...names.map(() => 0)]));
  bytes.push(...section(7, [names.length, ...names.flatMap((n, i) => [n.length, ...Buffer.from(n), 0x00, i])]));
  bytes.push(...section(10, [names.length, ...names.flatMap((n) => [4, 0, 0x41, fns[n], 0x0b])])); // i32.const v (v < 64)
  return Uint8Array.from(bytes);
}

describe('the host checks the engine it loads', () => {
  let mod: EngineModule;
  beforeAll(async () => void (mod = await loadEngine()));

  it('reads the fold count from the engine, not from a copy', () => {
    expect(Number.isInteger(mod.crossFolds)).toBe(true);
    expect(mod.crossFolds).toBeGreaterThan(1);
  });

  it('refuses an engine that writes another number of metrics, naming both counts', async () => {
    const other = moduleReturning({ metricCount: host.METRIC_COUNT - 1, crossFolds: 4 });
    await expect(compileEngine(other)).rejects.toThrow(EngineError);
    await expect(compileEngine(other)).rejects.toMatchObject({ failure: 'abi_mismatch', retryable: false });
    await expect(compileEngine(other)).rejects.toThrow(`writes ${host.METRIC_COUNT - 1} fit metrics, this host reads ${host.METRIC_COUNT}`);
  });

  it('refuses a module without the counts it must report', async () => {
    await expect(compileEngine(moduleReturning({ fit: 0 }))).rejects.toThrow('does not export metricCount and crossFolds');
  });

  it('accepts a module that agrees on the metric count', async () => {
    const same = await compileEngine(moduleReturning({ metricCount: host.METRIC_COUNT, crossFolds: 3 }));
    expect(same.crossFolds).toBe(3);
  });
});
