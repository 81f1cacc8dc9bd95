// Fit worker entry when running the TypeScript source (tests, tsx): registers tsx's loader inside the
// worker (loader hooks from the parent's --import do not reach worker threads), then runs the worker body.
// The built service (dist/) starts worker.js itself (pool.ts).
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
