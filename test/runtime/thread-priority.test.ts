// Task threads and fit workers run nicer than the request thread (host/lib/thread-priority.ts,
// docs/guides/overload.md#priority): on Linux the nice value is the thread's own, so the request thread keeps
// its priority while the threads that read and fit give way to it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { startChildService } from '../helpers/child-service.ts';

const linux = process.platform === 'linux';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oq-nice-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The nice value of each thread of process `pid` (field 19 of /proc/PID/task/TID/stat). */
function threadNices(pid: number): number[] {
  return fs.readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // the command name is in parentheses and may hold spaces: count fields after its closing one
      return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
    } catch {
      return []; // the thread ended while we read
    }
  });
}

describe.runIf(linux)('background thread priority', () => {
  it("a nice value set in a thread is that thread's alone (what lowerThreadPriority relies on)", async () => {
    const base = os.getPriority(0);
    const src = `
      const { parentPort } = require('node:worker_threads');
      const os = require('node:os');
      const before = os.getPriority(0);
      os.setPriority(0, Math.min(19, before + 10));
      parentPort.postMessage([before, os.getPriority(0)]);`;
    const [before, after] = await new Promise<number[]>((resolve, reject) => {
      const w = new Worker(src, { eval: true });
      w.once('message', resolve);
      w.once('error', reject);
    });
    expect(before).toBe(base);
    expect(after).toBe(Math.min(19, base + 10));
    expect(os.getPriority(0)).toBe(base); // this thread, and so the process's other threads, kept theirs
  });

  it("runs the service's task threads and fit workers at BACKGROUND_NICE above the request thread", async () => {
    const node = await startChildService(dir, { FIT_WORKERS: '2', WARM_THREADS: '1' });
    const pid = node.child.pid!;
    const base = threadNices(pid)[0]; // the first task is the process's main thread: the request thread
    const nicer = Math.min(19, base + 10);
    // warming starts one task thread and both fit workers: three threads that lower themselves
    const deadline = Date.now() + 60_000;
    let lowered = 0;
    while (Date.now() < deadline) {
      lowered = threadNices(pid).filter((n) => n === nicer).length;
      if (lowered >= 3) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(lowered).toBeGreaterThanOrEqual(3);
    expect(threadNices(pid)[0]).toBe(base);
    await node.stop();
  }, 90_000);
});
