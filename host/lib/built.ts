// Whether this process runs the compiled service (dist/, `npm run build`) or the TypeScript source (tests,
// `tsx host/main.ts`). Only what differs between the two asks: which worker-thread entry to start (the
// source's entries register the TypeScript loader first) and whether the page's script may be bundled.
export const RUNNING_BUILT = import.meta.url.endsWith('.js');
