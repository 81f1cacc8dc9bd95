// What an operation is: its one declaration (name, method and path, auth, body, schemas, texts, examples,
// MCP hints, whether it may run as a task) and its `run`. REST routes (host/http/rest.ts), MCP tools
// (host/mcp), the OpenAPI document (host/openapi) and the task executors (tasks.ts) are all derived from
// the table of these in host/operations/index.ts; nothing else registers an operation.
import type * as v from 'valibot';
import type { OpContext, OpResult } from '../runtime/services.ts';
import type { TaskExecutor } from '../runtime/tasks.ts';

/** MCP tool annotations (docs/reference/mcp.md); every hint is set explicitly. */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface OperationExample {
  name: string;
  summary: string;
  value: Record<string, unknown>;
}

/**
 * How the transport reads the request: `json` a JSON body is required; `json-optional` an empty body is {}
 * (docs/reference/journeys.md#describe describe); `none` the body is never read (docs/reference/auth.md#test-keys register_agent, GET routes); `stream` the
 * raw body is handed to the operation unread (a presigned upload).
 */
export type BodyMode = 'json' | 'json-optional' | 'none' | 'stream';

/** Which transport carried the call (docs/reference/ask.md#large-answers: over MCP a large answer is paged; REST answers whole). */
export type Transport = 'rest' | 'mcp';

/** What a transport knows of the request besides its JSON body (path parameters, headers, raw body). */
export interface OperationRequest {
  transport: Transport;
  params: Readonly<Record<string, string>>;
  header(name: string): string | undefined;
  query(name: string): string | undefined;
  /** The unread body, for `stream` operations; null otherwise. */
  stream: ReadableStream<Uint8Array> | null;
  /** Aborted when the client goes away (long streams stop then). */
  signal: AbortSignal;
}

/** How any process re-runs a stored request of an operation that went pending (runtime/tasks.ts). */
export type { TaskExecutor };

/** The resource an operation belongs to: the folder of host/operations/ it lives in, and its tag in /openapi.json. */
export type Resource = 'account' | 'ask' | 'backtest' | 'datasets' | 'map' | 'models' | 'outcomes' | 'schedules' | 'tasks';

export interface Operation {
  /** The spec's operation name (svc_ask, register_agent), or a route's own (export_model, jwks). */
  name: string;
  resource: Resource;
  method: 'GET' | 'POST' | 'PUT';
  /** Hono path, `:param` for parameters (docs/reference/README.md: POST {base_url}/v1/<path>). */
  path: string;
  /** docs/reference/auth.md#scheme: verify, describe and register_agent need no key. */
  auth: 'key' | 'none';
  /** With auth none: a key sent anyway is checked and the caller given to `run` (docs/reference/journeys.md#describe svc_describe lists its schedules). */
  keyIfGiven?: boolean;
  /** docs/reference/outcomes.md#report, docs/reference/auth.md#capabilities: a capability the key must hold (checked before the body is read). */
  scope?: 'write:outcomes';
  body: BodyMode;
  title: string;
  /** For an agent and a reader: when to use it, what comes back, what it costs (docs/reference/limits.md#cost). */
  description: string;
  /** Cross-field rules the request schema holds but JSON Schema cannot express (raw checks are skipped). */
  rules?: string;
  /** The JSON body's schema; absent when the operation reads no JSON body. */
  request?: v.GenericSchema;
  /** The JSON reply's schema; absent for replies that are not JSON objects described in the document. */
  response?: v.GenericSchema;
  /** The reply's content type when it is not JSON (an event stream); absent: application/json. */
  produces?: string;
  /** The success status (docs/reference/auth.md#test-keys: register_agent answers 201). */
  status: 200 | 201;
  /** docs/reference/tasks.md#pending: may answer 202 with {status: "pending", task_id, retry_after_ms}. */
  pending?: boolean;
  /** docs/reference/mcp.md: also an MCP tool of the same name, with these hints (docs/reference/mcp.md); absent = REST only. */
  tool?: ToolHints;
  /**
   * Request bodies a reader can send: as they are when they need no earlier call; else with the ids
   * (EXAMPLE_IDS) replaced by those earlier calls gave.
   */
  examples: OperationExample[];
  /** Present when the operation may go pending: how any process re-runs its stored request. */
  task?: TaskExecutor;
  run(ctx: OpContext, body: unknown, req: OperationRequest): Promise<OpResult>;
}

/** A request with nothing but a JSON body (MCP tool calls, tests calling operations directly). */
export function bodyOnlyRequest(signal: AbortSignal = new AbortController().signal, transport: Transport = 'rest'): OperationRequest {
  return { transport, params: {}, header: () => undefined, query: () => undefined, stream: null, signal };
}

/** docs/reference/mcp.md hints of a read-only operation. */
export const READ_ONLY: ToolHints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** docs/reference/limits.md#cost: supporting operations are free. */
export const FREE = 'Free.';

/**
 * Ids the stateful examples name. They have the real formats (docs/reference/datasets.md#lifecycle, docs/reference/ask.md#questions, docs/reference/tasks.md#poll) but belong to no
 * workspace: a reader puts in the ones earlier calls gave, e.g. the model_ref of the saas_churn ask.
 */
export const EXAMPLE_IDS = {
  modelRef: 'mr1_6f1c2b9e4a7d40c58e3b91d2a0f4c7e1',
  taskId: 'tk_01jz8q4m6r2v9x3k7n5p0w1c8d',
  datasetId: 'ds_01jz8q4m6r2v9x3k7n5p0w1c8d',
  mappingId: 'mp_5e0c7b2a9d4f61e8b3a07c9d2e5f4a18',
  scheduleId: 'sc_01jz8q4m6r2v9x3k7n5p0w1c8d',
  // An svc_page cursor is a signed position (runtime/stored-answers.ts); this one is unsigned, for the shape only.
  cursor: 'eyJ3Ijoid3NfZXhhbXBsZSIsImEiOiJzYV9leGFtcGxlIiwiZSI6MTc2NDAwMDAwMCwibyI6NjB9.c2lnbmF0dXJlLW5vdC1mcm9tLXRoaXMtc2VydmljZS0',
  // A lever token is a signed payload (signing/lever-token.ts); this one is unsigned, for the shape only.
  leverToken:
    'eyJtIjoibXIxXzZmMWMyYjllNGE3ZDQwYzU4ZTNiOTFkMmEwZjRjN2UxIiwiZSI6ImN1c3RfMDAwMSIsImYiOiJzdXBwb3J0X3RpY2tldHMiLCJiIjo1LCJkIjoiZGVjcmVhc2UifQ.' +
    'q7Vn0m3X2c9YtR1kP8sW4eJ6hL5uA0bD3fG2iK9oM1N',
} as const;
