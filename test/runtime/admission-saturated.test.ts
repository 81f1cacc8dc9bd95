// Admission's body budget when the request thread has no time left (host/runtime/admission.ts): a body
// over 1 MiB is refused at once (503 server_busy with Retry-After) while the event loop is saturated and
// four others are being read; small bodies, a lone large body, and any body on an idle thread are taken.
import { describe, expect, it } from 'vitest';
import { Admission, LARGE_BODY_BYTES, LoopLoad } from '../../host/runtime/admission.ts';
import { ServiceError } from '../../host/errors.ts';

const counter = { countUnfinishedTasks: async () => ({ pending: 0, workspace: 0 }) };
const config = { taskQueueMax: 64, workspaceTasksMax: 4, bodyMemoryBytes: 256 * 1024 * 1024 };
const loadOf = (u: number) => ({ utilization: () => u });

function refusal(f: () => void): ServiceError | null {
  try {
    f();
    return null;
  } catch (err) {
    return err as ServiceError;
  }
}

describe('a large body while the request thread is saturated', () => {
  it('is refused with 503 server_busy and Retry-After when four other bodies are in hand', () => {
    const a = new Admission(config, counter, loadOf(0.99));
    const others = [a.reserveBody(), a.reserveBody(), a.reserveBody(), a.reserveBody()];
    for (const o of others) o.grow(10_000);
    const mine = a.reserveBody();
    mine.grow(LARGE_BODY_BYTES); // up to the line: taken
    const err = refusal(() => mine.grow(1));
    expect(err?.code).toBe('server_busy');
    expect(err?.headers?.['Retry-After']).toBe('2');
    expect(err?.extra?.retry_after_ms).toBe(2000);
    mine.release();
    for (const o of others) o.release();
    expect(a.heldBodyBytes).toBe(0);
  });

  it('is taken when the thread has time, or when it is the only other body, and small bodies always are', () => {
    const idle = new Admission(config, counter, loadOf(0.5));
    const busyOne = new Admission(config, counter, loadOf(0.99));
    for (const a of [idle, busyOne]) {
      // the idle thread with four others in hand; the saturated one with three
      for (let i = 0; i < (a === idle ? 4 : 3); i++) a.reserveBody().grow(10);
      const mine = a.reserveBody();
      expect(refusal(() => mine.grow(3 * LARGE_BODY_BYTES))).toBeNull();
    }
    const saturated = new Admission(config, counter, loadOf(1));
    for (let i = 0; i < 4; i++) saturated.reserveBody().grow(10);
    expect(refusal(() => saturated.reserveBody().grow(LARGE_BODY_BYTES - 1))).toBeNull();
  });
});

describe('LoopLoad', () => {
  it('reads a loop kept busy as saturated, and the same loop left idle as not', async () => {
    const load = new LoopLoad();
    load.utilization(); // starts sampling
    const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
    // busy: the loop runs 50 ms blocks back to back for 700 ms (the sampler still gets its turns between them)
    const until = Date.now() + 700;
    while (Date.now() < until) {
      const block = Date.now() + 50;
      while (Date.now() < block) {
        // spin
      }
      await new Promise((r) => setImmediate(r));
    }
    expect(load.utilization()).toBeGreaterThan(0.8);
    await wait(700);
    expect(load.utilization()).toBeLessThan(0.5);
  });
});
