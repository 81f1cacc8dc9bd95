// Worker thread entry in plain JS: registers tsx's loader inside the worker (loader hooks from the
// parent's --import do not reach worker threads on Node 20), then runs the TypeScript worker body.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
