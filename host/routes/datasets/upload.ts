// PUT /v1/uploads/:token (wire.md "Datasets"): no bearer key (the signed token authorises) and a raw
// CSV body streamed to the operation, so it is mounted by hand rather than as a JSON RouteSpec.
import type { Hono } from 'hono';
import type { AppEnv } from '../../http/env.ts';
import { uploadOperation } from '../../operations/datasets/upload.ts';
import { opContextOf, sendResult } from '../route.ts';

export const UPLOAD_PATH = '/v1/uploads/:token';

export function mountUploadRoute(app: Hono<AppEnv>): void {
  app.put(UPLOAD_PATH, async (c) => {
    const declared = c.req.header('content-length');
    const bytes = declared !== undefined && /^\d+$/.test(declared) ? Number(declared) : undefined;
    return sendResult(c, await uploadOperation(opContextOf(c), c.req.param('token'), c.req.raw.body, bytes));
  });
}
