// Admission's body budget when the request thread has no time left (host/operations/admission.ts): a body
// over 1 MiB is refused at once (503 server_busy with Retry-After) while the event loop is saturated and
// others are being read; small bodies, a lone large body, and any body on an idle thread are taken.
import { describe, expect, it } from 'vitest';
import { Admission, LARGE_BODY_BYTES } from '../../host/operations/admission.ts';
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
  it('is refused with 503 server_busy and Retry-After when two other bodies are in hand', () => {
    const a = new Admission(config, counter, loadOf(0.99));
    const others = [a.reserveBody(), a.reserveBody()];
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
      const other = a.reserveBody();
      other.grow(10);
      if (a === idle) a.reserveBody().grow(10);
      const mine = a.reserveBody();
      expect(refusal(() => mine.grow(3 * LARGE_BODY_BYTES))).toBeNull();
    }
    const saturated = new Admission(config, counter, loadOf(1));
    saturated.reserveBody().grow(10);
    saturated.reserveBody().grow(10);
    expect(refusal(() => saturated.reserveBody().grow(LARGE_BODY_BYTES - 1))).toBeNull();
  });
});
