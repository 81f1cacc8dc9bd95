// Task thread entry when running the TypeScript source (tests, tsx): registers tsx's loader inside the
// thread (loader hooks from the parent's --import do not reach worker threads), then runs the program
// (task-thread-main.ts). The built service (dist/) starts task-thread-main.js itself.
import { register } from 'tsx/esm/api';

register();
await import('./task-thread-main.ts');
