// Bundles the preview page's script (host/web/preview.ts) with esbuild for the browser. Run as a
// script it writes build/web/preview.js (`npm run build:web`); the server calls buildPreviewBundle().
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HOST = fileURLToPath(new URL('..', import.meta.url));
export const ENTRY = path.join(HOST, 'web/preview.ts');
export const BUNDLE_PATH = fileURLToPath(new URL('../../build/web/preview.js', import.meta.url));

/**
 * Browser stand-ins for the few Node-only modules on the answer path (everything else is the
 * service's own code): the engine's public surface minus its fs loader and worker pool, Verdict and
 * lever-token signing (only the service holds those keys), and node:crypto's createHash (sync SHA-256).
 */
const STAND_INS = new Map<string, string>([
  [path.join(HOST, 'engine/index.ts'), path.join(HOST, 'web/browser/engine.ts')],
  [path.join(HOST, 'operations/ask/verdicts.ts'), path.join(HOST, 'web/browser/verdicts.ts')],
  [path.join(HOST, 'operations/lever-token.ts'), path.join(HOST, 'web/browser/lever-token.ts')],
]);
const NODE_CRYPTO = path.join(HOST, 'web/browser/node-crypto.ts');

type EsbuildPlugin = import('esbuild').Plugin;

const standIns: EsbuildPlugin = {
  name: 'preview-stand-ins',
  setup(build) {
    build.onResolve({ filter: /^node:/ }, (args) => {
      if (args.path === 'node:crypto') return { path: NODE_CRYPTO };
      return {
        errors: [
          {
            text: `${path.relative(HOST, args.importer)} imports ${args.path}, which the browser preview cannot load; keep Node-only code off the answer path or add a stand-in in host/web/browser/`,
          },
        ],
      };
    });
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      const target = STAND_INS.get(path.resolve(args.resolveDir, args.path));
      return target ? { path: target } : undefined;
    });
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
    plugins: [standIns],
  });
  return result.outputFiles[0].text;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const js = await buildPreviewBundle();
  mkdirSync(path.dirname(BUNDLE_PATH), { recursive: true });
  writeFileSync(BUNDLE_PATH, js);
  console.log(`wrote ${path.relative(process.cwd(), BUNDLE_PATH)} (${(js.length / 1024).toFixed(0)} KiB)`);
}
