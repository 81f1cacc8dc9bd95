// A task thread's program: the thread body (runtime/task-thread.ts) with the operation table's task
// executors. The program puts the two together here, so the runtime never imports the operations
// (runtime/task-threads.ts is given this file, or task-thread-entry.mjs from source, by main.ts).
import { OPERATIONS, taskExecutorsOf } from './operations/index.ts';
import { serveTaskThread } from './runtime/task-thread.ts';

serveTaskThread(taskExecutorsOf(OPERATIONS));
