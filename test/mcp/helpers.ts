// MCP test helpers: the real SDK client over streamable HTTP, optionally with a bearer key or an in-process fetch.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

export { startTestService, type TestService } from '../helpers/service.ts';

export interface ConnectOptions {
  key?: string;
  /** Serve requests in-process (app.fetch) instead of over the network. */
  fetch?: FetchLike;
  name?: string;
}

export async function connectMcp(baseUrl: string, opts: ConnectOptions = {}): Promise<Client> {
  const headers: Record<string, string> = opts.key ? { Authorization: `Bearer ${opts.key}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
    requestInit: { headers },
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  const client = new Client({ name: opts.name ?? 'mcp-test', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

/** Drops what legitimately differs between two calls of the same ask (docs/design/architecture.md#determinism). */
export function withoutCallIdentity(reply: any): any {
  const copy = structuredClone(reply);
  for (const answer of Object.values<any>(copy.answers ?? {})) {
    // docs/reference/ask.md#answer: when this workspace's link to the model expires (set when it first got the model)
    delete answer.model_expires_at;
    for (const entry of answer.verdicts ?? []) {
      delete entry.signature;
      delete entry.verdict.verdict_id;
      delete entry.verdict.computed_at;
      delete entry.verdict.expires_at;
    }
  }
  return copy;
}

/**
 * What must equal between any two asks of the same question on the same record, whoever asks first:
 * also drops `cache` and `fits_run`, which say whether this call or an earlier one ran the fit.
 */
export function deterministicParts(reply: any): any {
  const copy = withoutCallIdentity(reply);
  delete copy.fits_run;
  for (const answer of Object.values<any>(copy.answers ?? {})) delete answer.cache;
  return copy;
}
