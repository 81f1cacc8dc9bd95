// The two pages the service's own texts link to: /problems/<code> (every Problem's `type` and
// `doc_url`, docs/reference/errors.md#problem) and /keys (the default {keys_url}, docs/reference/auth.md#live-keys). Plain HTML, no script.
import type { Context, Hono } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { PROBLEM_CODES, ServiceError, type ProblemCode } from '../errors.ts';

const CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(c: Context<AppEnv>, title: string, body: string): Response {
  const nav = `<p><a href="/docs">API reference and guides</a> · <a href="/problems">Problem codes</a> · <a href="/keys">API keys</a></p>`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>${nav}${body}</body></html>`;
  return c.html(html, 200, { 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'cache-control': 'public, max-age=300' });
}

function problemPage(c: Context<AppEnv>): Response {
  const code = c.req.param('code') ?? '';
  if (!Object.hasOwn(PROBLEM_CODES, code))
    throw new ServiceError('not_found', `no problem code ${JSON.stringify(code)}; see ${c.get('services').config.baseUrl}/problems`);
  const info = PROBLEM_CODES[code as ProblemCode];
  return page(
    c,
    `${code}: ${info.title}`,
    `<h1><code>${escapeHtml(code)}</code></h1><p>${escapeHtml(info.title)} (HTTP ${info.status}).</p>` +
      `<h2>What to do</h2><p>${escapeHtml(info.remedy)}</p>` +
      `<p>Every error of this service is an <code>application/problem+json</code> body (RFC 9457) with <code>code</code>, <code>detail</code> (what was wrong with that request), <code>remedy</code> and, when one argument is at fault, <code>field</code> (its dotted path). <a href="../problems">All codes</a>; <a href="/docs/reference/errors.md#${escapeHtml(code)}">this code in the reference</a>.</p>`,
  );
}

function problemIndex(c: Context<AppEnv>): Response {
  const rows = Object.entries(PROBLEM_CODES)
    .map(
      ([code, info]) =>
        `<tr><td><a href="problems/${code}"><code>${code}</code></a></td><td>${info.status}</td><td>${escapeHtml(info.title)}</td></tr>`,
    )
    .join('');
  return page(
    c,
    'Problem codes',
    `<h1>Problem codes</h1><table><thead><tr><th>code</th><th>status</th><th>title</th></tr></thead><tbody>${rows}</tbody></table>`,
  );
}

function keysPage(c: Context<AppEnv>): Response {
  const base = escapeHtml(c.get('services').config.baseUrl);
  return page(
    c,
    'API keys',
    `<h1>API keys</h1>` +
      `<p>A <strong>test key</strong> works on the sample datasets only and needs nobody: <code>POST ${base}/v1/agents/register</code> returns one (shown once).</p>` +
      `<p><strong>Live keys</strong> are issued per workspace by the operator of this service. Ask them for one. Operators create, list and revoke keys on the server with:</p>` +
      `<pre>npm run keys -- create --workspace NAME [--can-report-outcomes]\nnpm run keys -- list [--workspace NAME]\nnpm run keys -- revoke KEY_ID</pre>` +
      `<p>Send a key as <code>Authorization: Bearer &lt;key&gt;</code>. A key made with <code>--can-report-outcomes</code> may also report outcomes and attest actions.</p>`,
  );
}

/** GET /problems, /problems/:code and /keys. */
export function mountDocsPages(app: Hono<AppEnv>): void {
  app.get('/problems', problemIndex);
  app.get('/problems/:code', problemPage);
  app.get('/keys', keysPage);
}
