// host/errors.ts: every thrown value maps to one Problem code (docs/reference/errors.md#problem), engine and store faults
// included, so REST, MCP and stored task problems answer the same thing for the same failure.
import { describe, expect, it } from 'vitest';
import { answerFor, reviveProblem, serviceErrorOf, ServiceError, storeProblem, toProblem } from '../host/errors.ts';
import { EngineError, FitPool, encodeTable } from '../host/engine/index.ts';
import { toFitInput } from '../host/engine/fit-core.ts';
import { callEngine } from '../host/engine/wasm.ts';
import { StoreUnavailableError } from '../host/store/errors.ts';
import { syntheticFixture } from './engine/helpers.ts';

const silent = { warn: () => undefined, error: () => undefined };

describe('serviceErrorOf', () => {
  it('keeps a ServiceError as it is', () => {
    const e = new ServiceError('unknown_dataset', 'gone', { field: 'data.dataset_id' });
    expect(serviceErrorOf(e)).toBe(e);
  });

  it('answers an engine fault that would fail again as 500 engine_fault, never internal', () => {
    for (const failure of ['bad_input', 'bad_model', 'trap', 'not_built', 'abi_mismatch'] as const) {
      const e = serviceErrorOf(new EngineError(failure, `x ${failure}`))!;
      expect(e.code, failure).toBe('engine_fault');
      expect(e.status).toBe(500);
    }
  });

  it('answers a worker that died or a pool that closed as 503 engine_unavailable with Retry-After', () => {
    for (const failure of ['worker_died', 'pool_closed'] as const) {
      const e = serviceErrorOf(new EngineError(failure, 'gone'))!;
      expect(e.code).toBe('engine_unavailable');
      expect(e.status).toBe(503);
      expect(e.headers?.['Retry-After']).toMatch(/^\d+$/);
      expect(e.extra?.retry_after_ms).toBeGreaterThan(0);
    }
  });

  it('answers an unreachable database as 503 store_unavailable with Retry-After', () => {
    const e = serviceErrorOf(new StoreUnavailableError('connection refused'))!;
    expect(e.code).toBe('store_unavailable');
    expect(e.status).toBe(503);
    expect(e.headers?.['Retry-After']).toBeDefined();
  });

  it('returns null for anything else, which answerFor logs and answers as a bare 500 internal', () => {
    const boom = new Error('secret path /var/lib/x');
    expect(serviceErrorOf(boom)).toBeNull();
    const logged: unknown[] = [];
    const answered = answerFor(boom, { ...silent, error: (o) => logged.push(o) }, { request_id: 'r1' });
    expect(answered.code).toBe('internal');
    expect(answered.message).not.toContain('secret');
    expect(logged).toHaveLength(1);
  });

  it('keeps the engine or store error it answers for as its cause, and never sends it', () => {
    const engine = new EngineError('trap', 'unreachable executed');
    const store = new StoreUnavailableError('the database is unreachable');
    expect(serviceErrorOf(engine)!.cause).toBe(engine);
    expect(serviceErrorOf(new EngineError('worker_died', 'gone'))!.cause).toBeInstanceOf(EngineError);
    expect(serviceErrorOf(store)!.cause).toBe(store);
    const problem = toProblem(serviceErrorOf(engine)!, 'https://svc.example');
    expect(Object.keys(problem)).not.toContain('cause');
    expect(new ServiceError('internal', 'x').cause).toBeUndefined();
  });

  it('keeps a per-occurrence remedy through toProblem and a stored round trip', () => {
    const e = new ServiceError('invalid_request', 'questions: must be an object', {
      field: 'questions',
      remedy: 'Send questions as {name: question}.',
    });
    expect(toProblem(e, 'http://x').remedy).toBe('Send questions as {name: question}.');
    const again = reviveProblem(storeProblem(e));
    expect(toProblem(again, 'http://x')).toEqual(toProblem(e, 'http://x'));
    expect(toProblem(new ServiceError('invalid_request', 'y'), 'http://x').remedy).not.toBe('Send questions as {name: question}.');
  });
});

describe('engine faults are typed where they happen', () => {
  it('a trap inside an engine call becomes EngineError trap', () => {
    const err = (() => {
      try {
        callEngine('a test', () => {
          throw new WebAssembly.RuntimeError('unreachable');
        });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).failure).toBe('trap');
  });

  it('a fit whose worker is stopped mid-fit rejects with a retryable EngineError', async () => {
    const f = syntheticFixture(20_000, 20, 3);
    const input = toFitInput(encodeTable(f.table, { entityColumn: f.entityColumn, outcomeColumn: f.outcomeColumn, outcome: f.outcome }));
    const pool = new FitPool(1);
    const running = pool.run(input);
    await new Promise((r) => setTimeout(r, 100));
    await pool.close();
    const err = await running.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).retryable).toBe(true);
    expect(serviceErrorOf(err)!.code).toBe('engine_unavailable');
    await expect(pool.run(input)).rejects.toMatchObject({ failure: 'pool_closed' });
  });
});
