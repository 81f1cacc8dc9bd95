// Task thread entry in plain JS: registers tsx's loader inside the thread (loader hooks from the parent's
// --import do not reach worker threads on Node 20), then runs the TypeScript thread body.
import { register } from 'tsx/esm/api';

register();
await import('./runtime/task-thread.ts');
