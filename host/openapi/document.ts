// The OpenAPI 3.1 document (spec 4, 5, 7): one POST per implemented operation (and per extension route such
// as the model export) with its request, reply, 202 pending reply (ask, poll), Problems per status and
// bearer security; other routes (JWKS, health) get a short entry.
import type { ImplementedOperation, OperationExample, RouteLike, ToolHints } from '../operations/registry.ts';
import { EXTENSIONS, type ExtensionInfo } from './extensions.ts';
import { JSON_SCHEMA_DIALECT, type Json } from './json-schema.ts';
import { problemResponseName, problemResponses, problemStatusesOf } from './problems.ts';
import { COMPONENT_BASE, pascalOf, schemaComponentsOf, type SchemaComponents } from './schemas.ts';
import { discoveryUrlOf, type TrustedIssuer } from '../signing/index.ts';

/** Routes that are not spec operations: what they are, when known. */
const OTHER_ROUTES: Record<string, { summary: string; description: string }> = {
  '/.well-known/jwks.json': {
    summary: 'Public Verdict keys',
    description: 'The Ed25519 keys Verdicts are signed with, retired ones included (spec 2.11); verify offline with them.',
  },
  '/healthz': { summary: 'Liveness', description: 'Answers 200 while the service runs.' },
};

const PENDING_EXAMPLE = { status: 'pending', task_id: 'tk_01jaaaaaaaaaaaaaaaaaaaaaaa', retry_after_ms: 1000 };

function pendingSchema(replyRef: Json): Json {
  return {
    description: 'Spec 3.2: the fit is still running. Wait retry_after_ms, then call svc_poll with task_id; do not re-send the ask.',
    allOf: [replyRef, { type: 'object', properties: { status: { const: 'pending' } }, required: ['status', 'task_id', 'retry_after_ms'] }],
  };
}

/** One POST as the document shows it: a spec operation (with its MCP tool) or an extension route. */
interface DocOperation {
  operationId: string;
  title: string;
  description: string;
  auth: 'key' | 'none';
  status: number;
  pending: boolean;
  request?: Json;
  reply: Json;
  examples: OperationExample[];
  /** Spec 4.8: describe takes an empty object, and an empty body means the same. */
  bodyOptional: boolean;
  tool?: ToolHints;
}

/** Spec 5.1: the schemes a keyed operation accepts; `oauth` only when the operator trusts an issuer. */
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
      description: 'Pending: the fit is still running (spec 3.2).',
      content: { 'application/json': { schema: pendingSchema(op.reply), example: PENDING_EXAMPLE } },
    };
  }
  for (const status of problemStatusesOf(op)) responses[String(status)] = { $ref: `#/components/responses/${problemResponseName(status)}` };

  const out: Json = {
    operationId: op.operationId,
    summary: op.title,
    description: op.description,
    // Spec 5.5: verify, describe and register_agent need no credential.
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

function specOperationOf(op: ImplementedOperation, components: SchemaComponents): DocOperation {
  const base = pascalOf(op.name);
  return {
    operationId: op.name,
    title: op.title,
    description: op.rules ? `${op.description}\n\n${op.rules}` : op.description,
    auth: op.auth,
    status: op.status,
    pending: op.pending,
    request: op.request ? components.ref(op.request, `${base}Request`) : undefined,
    reply: components.ref(op.response, `${base}Response`),
    examples: op.examples,
    bodyOptional: op.name === 'svc_describe',
    tool: op.tool,
  };
}

function extensionOf(ext: ExtensionInfo, route: RouteLike, components: SchemaComponents): DocOperation {
  return {
    operationId: ext.operationId,
    title: ext.title,
    description: ext.description,
    auth: route.auth,
    status: 200,
    pending: false,
    request: components.ref(ext.request, `${ext.component}Request`),
    reply: components.ref(ext.response, `${ext.component}Response`),
    examples: ext.examples,
    bodyOptional: false,
  };
}

function otherRouteOf(route: RouteLike, security: Security): Json {
  const known = OTHER_ROUTES[route.path];
  return {
    operationId: `${route.method.toLowerCase()}_${route.path.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}`,
    summary: known?.summary ?? `${route.method} ${route.path}`,
    ...(known ? { description: known.description } : {}),
    security: route.auth === 'key' ? security : [],
    responses: { '200': { description: 'Success.', content: { 'application/json': { schema: { type: 'object' } } } } },
  };
}

export interface DocumentInput {
  operations: readonly ImplementedOperation[];
  routes: readonly RouteLike[];
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
      'An OAuth access token (RFC 9068 JWT) from a trusted issuer, sent as Authorization: Bearer <token> (spec 5.1). ' +
      'Checked: signature against the issuer keys, iss, aud, exp and nbf (small clock skew), alg, sub and the workspace claim; ' +
      'a failed check is 401 invalid_token with failed_check. Trusted issuers:\n' +
      lines.join('\n'),
  };
}

/** The document without `servers` (the base URL is known only once the service listens). */
export function buildOpenApi({ operations, routes, issuers = [] }: DocumentInput): Json {
  const components = schemaComponentsOf(operations);
  // Declared only when issuers are configured: a server that trusts none refuses every token, and a scheme
  // advertised anyway would send clients to an identity provider for tokens that can never work.
  const security: Security = issuers.length > 0 ? [{ bearer: [] }, { oauth: [] }] : [{ bearer: [] }];
  const paths: Record<string, Json> = {};
  for (const op of operations) paths[op.path] = { post: operationOf(specOperationOf(op, components), security) };
  for (const route of routes) {
    if (operations.some((op) => op.path === route.path)) continue;
    const item = (paths[route.path] ??= {});
    const ext = route.method === 'POST' ? EXTENSIONS.find((e) => e.path === route.path) : undefined;
    item[route.method.toLowerCase()] = ext ? operationOf(extensionOf(ext, route, components), security) : otherRouteOf(route, security);
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: JSON_SCHEMA_DIALECT,
    info: {
      title: 'Outcome-question service',
      version: '1.0.0',
      description:
        'Answers typed questions about cases, learned from a record of past cases with a yes/no outcome, and refuses ' +
        'rather than guesses. Every operation is also an MCP tool of the same name at POST /mcp (streamable HTTP, ' +
        'stateless). Errors are application/problem+json. Start with POST /v1/describe.',
    },
    security,
    paths,
    components: {
      schemas: components.schemas,
      responses: problemResponses(),
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'A live key (svck_live_...) or a test key (svck_test_..., samples only; POST /v1/agents/register) (spec 5).',
        },
        ...(issuers.length > 0 ? { oauth: oauthSchemeOf(issuers) } : {}),
      },
    },
  };
}

export { COMPONENT_BASE };
