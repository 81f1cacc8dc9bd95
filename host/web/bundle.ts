// Bundles the preview page's script (host/web/preview.ts) with esbuild for the browser. Run as a
// script it writes build/web/preview.js (`npm run build:web`); the server run from source calls
// buildPreviewBundle(), the built one serves the file (serve.ts).
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLE_PATH } from './bundle-path.ts';

const HOST = fileURLToPath(new URL('..', import.meta.url));
export const ENTRY = path.join(HOST, 'web/preview.ts');

type EsbuildPlugin = import('esbuild').Plugin;

/**
 * The page runs the service's own modules unchanged; a Node built-in reaching the bundle means Node-only
 * code got onto the page's path, which fails the build with the module that brought it in.
 */
const noNodeBuiltins: EsbuildPlugin = {
  name: 'no-node-builtins',
  setup(build) {
    build.onResolve({ filter: /^node:/ }, (args) => ({
      errors: [
        {
          text: `${path.relative(HOST, args.importer)} imports ${args.path}, which the browser preview cannot load; keep Node-only code off the page's path (inject it, as AnswerDeps does)`,
        },
      ],
    }));
  },
};

/** The bundled page script (ES module text). Throws when esbuild is not installed (npm ci --omit=dev). */
export async function buildPreviewBundle(): Promise<string> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [ENTRY],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
    plugins: [noNodeBuiltins],
  });
  return result.outputFiles[0].text;
}

/** Writes build/web/preview.js (the server serves it when esbuild is not installed). */
export async function writePreviewBundle(): Promise<void> {
  const js = await buildPreviewBundle();
  mkdirSync(path.dirname(BUNDLE_PATH), { recursive: true });
  writeFileSync(BUNDLE_PATH, js);
  console.log(`wrote ${path.relative(process.cwd(), BUNDLE_PATH)} (${(js.length / 1024).toFixed(0)} KiB)`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await writePreviewBundle();
