// The OpenAPI 3.1 document (docs/reference/README.md, docs/reference/auth.md, docs/reference/errors.md): one entry per operation of the table, with its request, reply,
// 202 pending reply (ask, poll), Problems per status and bearer security; a GET route without a reply
// schema (JWKS, health) gets a plain object reply.
import type { Operation, OperationExample, Resource, ToolHints } from '../operations/operation.ts';
import { JSON_SCHEMA_DIALECT, type Json } from './json-schema.ts';
import { problemResponseName, problemResponses, problemStatusesOf } from './problems.ts';
import { COMPONENT_BASE, pascalOf, schemaComponentsOf, type SchemaComponents } from './schemas.ts';
import { discoveryUrlOf, type TrustedIssuer } from '../signing/index.ts';
import { INTERFACE_VERSION } from '../core/contract.ts';

const PENDING_EXAMPLE = { status: 'pending', task_id: 'tk_01jaaaaaaaaaaaaaaaaaaaaaaa', retry_after_ms: 1000 };

function pendingSchema(replyRef: Json): Json {
  return {
    description:
      'docs/reference/tasks.md#pending: the fit is still running. Wait retry_after_ms, then call svc_poll with task_id; do not re-send the ask.',
    allOf: [replyRef, { type: 'object', properties: { status: { const: 'pending' } }, required: ['status', 'task_id', 'retry_after_ms'] }],
  };
}

/**
 * The document's tags: one per resource, in the order a newcomer meets them, each pointing at its reference page
 * (served at /docs/reference/<page>), so the API reference at /docs groups the operations as the docs do.
 */
const TAGS: ReadonlyArray<{ name: Resource; description: string; page: string }> = [
  { name: 'account', description: 'Keys, the service description and its journeys, verification, health.', page: 'auth.md' },
  { name: 'datasets', description: 'Records: inline, fetched, uploaded whole or in pieces; preflight and suggest.', page: 'datasets.md' },
  { name: 'ask', description: 'Questions about cases, answered with a chance, reasons and a signed Verdict.', page: 'ask.md' },
  { name: 'tasks', description: 'Pending work: poll, results, event streams, watch links.', page: 'tasks.md' },
  { name: 'models', description: 'Stored models: profile, export, extend, delete, drift, track record.', page: 'models.md' },
  { name: 'outcomes', description: 'What happened afterwards: report outcomes, attest, evidence.', page: 'outcomes.md' },
  { name: 'map', description: 'From a set of tables to a ready ask: map.', page: 'map.md' },
  { name: 'backtest', description: 'Would the answers have held in the past: backtest.', page: 'map.md' },
  { name: 'schedules', description: 'Asks that run on a cadence.', page: 'schedules.md' },
];

/** One POST as the document shows it: a spec operation (with its MCP tool) or an extension route. */
interface DocOperation {
  operationId: string;
  resource: Resource;
  title: string;
  description: string;
  auth: 'key' | 'none';
  status: number;
  pending: boolean;
  request?: Json;
  reply: Json;
  examples: OperationExample[];
  /** docs/reference/journeys.md#describe: describe takes an empty object, and an empty body means the same. */
  bodyOptional: boolean;
  tool?: ToolHints;
}

/** docs/reference/auth.md#oauth: the schemes a keyed operation accepts; `oauth` only when the operator trusts an issuer. */
type Security = Json[];

function operationOf(op: DocOperation, security: Security): Json {
  const responses: Json = {
    [String(op.status)]: {
      description: op.pending ? 'Done: the answer (status "done").' : 'Success.',
      content: { 'application/json': { schema: op.reply } },
    },
  };
  if (op.pending) {
    responses['202'] = {
      description: 'Pending: the fit is still running (docs/reference/tasks.md#pending).',
      content: { 'application/json': { schema: pendingSchema(op.reply), example: PENDING_EXAMPLE } },
    };
  }
  for (const status of problemStatusesOf(op)) responses[String(status)] = { $ref: `#/components/responses/${problemResponseName(status)}` };

  const out: Json = {
    operationId: op.operationId,
    tags: [op.resource],
    summary: op.title,
    description: op.description,
    // docs/reference/auth.md#scheme: verify, describe and register_agent need no credential.
    security: op.auth === 'key' ? security : [],
    responses,
  };
  if (op.tool) out['x-mcp-tool'] = { name: op.operationId, annotations: op.tool };
  if (op.request) {
    const examples = Object.fromEntries(op.examples.map((e) => [e.name, { summary: e.summary, value: e.value }]));
    out.requestBody = {
      required: !op.bodyOptional,
      content: { 'application/json': { schema: op.request, ...(op.examples.length > 0 ? { examples } : {}) } },
    };
  }
  return out;
}

/** `/v1/uploads/:token` -> `/v1/uploads/{token}` and its path parameters. */
function openApiPath(path: string): { path: string; params: string[] } {
  const params: string[] = [];
  // a parameter's pattern (`:index{[0-9]+}`) is the route's business, not the document's
  const out = path.replace(/:([A-Za-z_][A-Za-z0-9_]*)(\{[^}]*\})?/g, (_m, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path: out, params };
}

function docOperationOf(op: Operation, components: SchemaComponents): DocOperation {
  const base = pascalOf(op.name);
  return {
    operationId: op.name,
    resource: op.resource,
    title: op.title,
    description: op.rules ? `${op.description}\n\n${op.rules}` : op.description,
    auth: op.auth,
    status: op.status,
    pending: op.pending === true,
    request: op.request ? components.ref(op.request, `${base}Request`) : undefined,
    reply: op.response ? components.ref(op.response, `${base}Response`) : { type: 'object' },
    examples: op.examples,
    bodyOptional: op.body === 'json-optional',
    tool: op.tool,
  };
}

/** The document entry of one operation of the table. */
function entryOf(op: Operation, components: SchemaComponents, security: Security): Json {
  const entry = operationOf(docOperationOf(op, components), security);
  const { params } = openApiPath(op.path);
  if (params.length > 0) {
    entry.parameters = params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  }
  if (op.produces) {
    // not JSON: an event stream (docs/reference/tasks.md#events), described in the operation's text
    (entry.responses as Json)[String(op.status)] = { description: 'Success.', content: { [op.produces]: { schema: { type: 'string' } } } };
  }
  if (op.body === 'stream') {
    entry.requestBody = {
      required: true,
      content: { 'text/csv': { schema: { type: 'string', description: 'The CSV, UTF-8, header row first.' } } },
    };
  }
  if (!op.request && op.body !== 'stream') {
    // No JSON body is read, so no body problems (400, 413, 415, 422) can come back.
    for (const status of ['400', '413', '415', '422']) delete (entry.responses as Json)[status];
  }
  return entry;
}

export interface DocumentInput {
  operations: readonly Operation[];
  /** The configured OAuth issuers (OAUTH_ISSUERS); none: the document declares the key scheme only. */
  issuers?: readonly TrustedIssuer[];
}

const claimName = (path: string[]) => path.map((p) => JSON.stringify(p)).join('.');

/** What a client needs to know to bring a token: who issues it, for which audience, and which claims are read. */
function oauthSchemeOf(issuers: readonly TrustedIssuer[]): Json {
  const lines = issuers.map((t) => {
    const keys = t.jwksUri ? `keys at ${t.jwksUri}` : `discovery document ${discoveryUrlOf(t.issuer)}`;
    const workspace =
      t.workspace !== undefined
        ? `every token in workspace ${JSON.stringify(t.workspace)}`
        : `workspace from claim ${claimName(t.workspaceClaim!)}`;
    return (
      `- issuer \`${t.issuer}\` (${keys}): aud ${t.audience.map((a) => JSON.stringify(a)).join(' or ')}; ${workspace}; ` +
      `write:outcomes when claim ${claimName(t.capabilityClaim)} holds ${JSON.stringify(t.capabilityValue)}; ` +
      `alg ${t.algorithms.join(', ')}${t.requireTyp ? '; typ at+jwt' : ''}`
    );
  });
  return {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'An OAuth access token (RFC 9068 JWT) from a trusted issuer, sent as Authorization: Bearer <token> (docs/reference/auth.md#oauth). ' +
      'Checked: signature against the issuer keys, iss, aud, exp and nbf (small clock skew), alg, sub and the workspace claim; ' +
      'a failed check is 401 invalid_token with failed_check. Trusted issuers:\n' +
      lines.join('\n'),
  };
}

/** The document without `servers` (the base URL is known only once the service listens). */
export function buildOpenApi({ operations, issuers = [] }: DocumentInput): Json {
  const components = schemaComponentsOf(operations);
  // Declared only when issuers are configured: a server that trusts none refuses every token, and a scheme
  // advertised anyway would send clients to an identity provider for tokens that can never work.
  const security: Security = issuers.length > 0 ? [{ bearer: [] }, { oauth: [] }] : [{ bearer: [] }];
  const paths: Record<string, Json> = {};
  for (const op of operations) {
    const item = (paths[openApiPath(op.path).path] ??= {});
    item[op.method.toLowerCase()] = entryOf(op, components, security);
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: JSON_SCHEMA_DIALECT,
    info: {
      title: 'Outcome-question service',
      version: INTERFACE_VERSION,
      description:
        'Answers typed questions about cases, learned from a record of past cases with a yes/no outcome, and refuses ' +
        'rather than guesses. Every operation is also an MCP tool of the same name at POST /mcp (streamable HTTP, ' +
        'stateless). Errors are application/problem+json. Start with POST /v1/describe.',
    },
    security,
    tags: TAGS.map((t) => ({ name: t.name, description: t.description, externalDocs: { url: `/docs/reference/${t.page}` } })),
    paths,
    components: {
      schemas: components.schemas,
      responses: problemResponses(),
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A live key (svck_live_...) or a test key (svck_test_..., samples only; POST /v1/agents/register) (docs/reference/auth.md).',
        },
        ...(issuers.length > 0 ? { oauth: oauthSchemeOf(issuers) } : {}),
      },
    },
  };
}

export { COMPONENT_BASE };
