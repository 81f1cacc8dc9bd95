// A task's stored request keeps a request body as the JSON text it was parsed from (host/runtime/tasks.ts
// taskRequestJson, host/lib/raw-json.ts): read back, it is the same request as JSON.stringify would store.
import { describe, expect, it } from 'vitest';
import { parseJsonBytes } from '../../host/http/body.ts';
import { taskRequestJson, type TaskRequest } from '../../host/runtime/tasks.ts';
import { rawJsonOf } from '../../host/lib/raw-json.ts';

const caller = { workspaceId: 'ws_1', keyId: 'key_1', mode: 'live' } as unknown as TaskRequest['caller'];

describe('taskRequestJson', () => {
  it('stores a parsed body as its own text, read back as the same request', () => {
    const text =
      ' {\n  "data": {"rows": [{"id": "a", "x": 1.50, "s": "é\\u00e9\\n"}, {"id": "b", "x": -2e3}]},\n  "__proto__": {"k": 1}, "q": [] }\n';
    const body = parseJsonBytes(new TextEncoder().encode(text));
    expect(rawJsonOf(body)).toBe(text);
    for (const idempotency of [undefined, { operation: 'svc_ask', key: 'k"1' }]) {
      const req: TaskRequest = { operation: 'svc_ask', body, caller, ...(idempotency ? { idempotency } : {}) };
      const stored = taskRequestJson(req);
      expect(stored).toContain(text); // the caller's bytes, not written again
      expect(JSON.parse(stored)).toEqual(JSON.parse(JSON.stringify(req)));
    }
  });

  it('writes a body that was not parsed from a request (an MCP tool call, a built one) as JSON', () => {
    const req: TaskRequest = { operation: 'svc_ask', body: { data: { rows: [{ id: 'a' }] } }, caller };
    expect(taskRequestJson(req)).toBe(JSON.stringify(req));
  });
});
