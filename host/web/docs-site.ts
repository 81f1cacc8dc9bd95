// /docs: the API reference rendered from /openapi.json by Swagger UI (swagger-ui-dist, bundled in
// node_modules and served from this origin, never a CDN), beside the repository's own guides, reference
// and decisions: docs/**/*.md rendered to HTML with markdown-it at their own paths (/docs/guides/try-it.md),
// so the relative links between them, and a docs/...md#anchor cited in the code, work as they are.
//
// Strict CSP on both: scripts and styles from this origin only; no inline script or style, no eval. Swagger
// UI needs `img-src data:` for its icons (checked in Chromium: nothing else is refused). The markdown pages
// run no script at all. Raw HTML in the markdown is escaped (markdown-it `html: false`), except the one form
// the docs use for stable anchors, `<a id="..."></a>`, which is rebuilt from a checked id.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import markdownIt, { type MarkdownIt } from 'markdown-it';
import type { AppEnv } from '../http/env.ts';
import { ServiceError } from '../errors.ts';
import { asset, send, type Asset } from './static-asset.ts';

/** The repository's docs/ folder. */
export const DOCS_DIR = fileURLToPath(new URL('../../docs/', import.meta.url));

const SWAGGER_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const API_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** GitHub's heading slug, as the docs' links (and test/docs) expect: lower case, punctuation dropped. */
export function slugOf(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

const ANCHOR = /<a id="([A-Za-z0-9_-]{1,80})"><\/a>/g;

/** markdown-it with raw HTML escaped, GitHub-style heading ids and tables; no links made from bare text. */
function markdownRenderer(): MarkdownIt {
  const md = markdownIt({ html: false, linkify: false, typographer: false });
  md.core.ruler.push('heading_ids', (state) => {
    const seen = new Map<string, number>();
    state.tokens.forEach((token, i) => {
      if (token.type !== 'heading_open') return;
      const text = (state.tokens[i + 1].children ?? []).map((t) => t.content).join('');
      const slug = slugOf(text);
      const n = seen.get(slug) ?? 0;
      seen.set(slug, n + 1);
      token.attrSet('id', n ? `${slug}-${n}` : slug);
    });
  });
  return md;
}

/**
 * A docs page as HTML. `<a id="x"></a>` anchors are swapped for placeholders before rendering (so the
 * renderer escapes every other tag) and rebuilt after from their checked ids.
 */
export function renderMarkdown(md: MarkdownIt, source: string): string {
  const ids: string[] = [];
  const marked = source.replace(ANCHOR, (_all, id: string) => `ANCHOR${ids.push(id) - 1}ZZ`);
  return md.render(marked).replace(/ANCHOR(\d+)ZZ/g, (_all: string, k: string) => `<a id="${escapeHtml(ids[Number(k)])}"></a>`);
}

const NAV = [
  ['/docs', 'API reference'],
  ['/docs/README.md', 'Guides'],
  ['/docs/reference/README.md', 'Contract'],
  ['/docs/decisions/README.md', 'Decisions'],
  ['/docs/benchmarks.md', 'Benchmarks'],
  ['/', 'Preview'],
] as const;

function shell(title: string, body: string, head: string): string {
  const nav = NAV.map(([href, label]) => `<a href="${href}">${label}</a>`).join('');
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)}</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/docs/assets/docs.css">${head}</head>` +
    `<body><nav class="docs-nav"><strong>Outcome-question service</strong>${nav}</nav>${body}</body></html>`
  );
}

/** The docs/ file a /docs/... path names, or null: a .md file inside docs/, never above it. */
function docsFile(rel: string): string | null {
  if (!rel.endsWith('.md') || rel.includes('\0')) return null;
  const file = path.resolve(DOCS_DIR, rel);
  if (!file.startsWith(DOCS_DIR) || !existsSync(file)) return null;
  return file;
}

/** GET /docs (the API reference), /docs/assets/*, and every docs/**\/*.md page at /docs/<path>. */
export function mountDocsSite(app: Hono<AppEnv>): void {
  const md = markdownRenderer();
  const pageFile = (name: string) => fileURLToPath(new URL(`./page/${name}`, import.meta.url));
  const assets: Record<string, () => Asset> = {
    'swagger-ui-bundle.js': () => asset(readFileSync(path.join(SWAGGER_DIR, 'swagger-ui-bundle.js')), 'text/javascript; charset=utf-8'),
    'swagger-ui.css': () => asset(readFileSync(path.join(SWAGGER_DIR, 'swagger-ui.css')), 'text/css; charset=utf-8'),
    'api.js': () => asset(readFileSync(pageFile('docs-api.js')), 'text/javascript; charset=utf-8'),
    'docs.css': () => asset(readFileSync(pageFile('docs.css')), 'text/css; charset=utf-8'),
  };
  const cache = new Map<string, Asset>();
  const cached = (key: string, make: () => Asset) => {
    let a = cache.get(key);
    if (!a) cache.set(key, (a = make()));
    return a;
  };

  app.get('/docs', (c) =>
    send(
      c,
      cached('/docs', () =>
        asset(
          shell(
            'API reference',
            `<main class="api"><p class="lede">Every operation of this service, from <a href="/openapi.json">/openapi.json</a>. ` +
              `What each one means, in words: <a href="/docs/reference/README.md">the contract</a>; how to use them: <a href="/docs/README.md">the guides</a>.</p>` +
              `<div id="swagger-ui"></div></main>` +
              `<script src="/docs/assets/swagger-ui-bundle.js"></script><script src="/docs/assets/api.js"></script>`,
            `<link rel="stylesheet" href="/docs/assets/swagger-ui.css">`,
          ),
          'text/html; charset=utf-8',
          API_CSP,
        ),
      ),
    ),
  );
  app.get('/docs/assets/:file', (c) => {
    const name = c.req.param('file');
    if (!Object.hasOwn(assets, name)) throw new ServiceError('not_found', `There is no docs asset ${name}.`);
    return send(c, cached(`asset:${name}`, assets[name]));
  });
  app.get('/docs/*', (c) => {
    const rel = decodeURIComponent(c.req.path.slice('/docs/'.length));
    // A folder (what a newcomer types: /docs/, /docs/guides/) goes to an index: /docs/ to the API reference,
    // another folder to its README, or to the docs' own README when it has none.
    if (rel === '') return c.redirect('/docs', 301);
    if (rel.endsWith('/')) return c.redirect(docsFile(`${rel}README.md`) ? `/docs/${rel}README.md` : '/docs/README.md', 301);
    const file = docsFile(rel);
    if (!file) throw new ServiceError('not_found', `There is no docs page ${rel}; the guides start at /docs/README.md.`);
    return send(
      c,
      cached(`page:${rel}`, () => {
        const source = readFileSync(file, 'utf8');
        const title = /^# (.+)$/m.exec(source)?.[1] ?? rel;
        return asset(shell(title, `<main class="doc">${renderMarkdown(md, source)}</main>`, ''), 'text/html; charset=utf-8', PAGE_CSP);
      }),
    );
  });
}
