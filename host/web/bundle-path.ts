// Where `npm run build` writes the page's script: build/web/preview.js in a checkout, dist/build/web/preview.js
// beside the compiled service (host/cli/build.ts copies it there).
import { fileURLToPath } from 'node:url';

export const BUNDLE_PATH = fileURLToPath(new URL('../../build/web/preview.js', import.meta.url));
