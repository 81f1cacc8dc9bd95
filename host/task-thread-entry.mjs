// Task thread entry in plain JS: registers tsx's loader inside the thread (loader hooks from the parent's
// --import do not reach worker threads on Node 20), then runs the thread body (runtime/task-thread.ts) with
// the operation table's task executors. The program puts the two together here, so the runtime never
// imports the operations (runtime/task-threads.ts is given this file by main.ts).
import { register } from 'tsx/esm/api';

register();
const { OPERATIONS, taskExecutorsOf } = await import('./operations/index.ts');
const { serveTaskThread } = await import('./runtime/task-thread.ts');
serveTaskThread(taskExecutorsOf(OPERATIONS));
