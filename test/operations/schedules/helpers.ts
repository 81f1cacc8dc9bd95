// Schedule test helpers: the customer_events sample log served by a loopback https origin (what a user's
// export URL would be), counting its fetches, and a service that may fetch from it with a fast dispatcher.
import fs from 'node:fs';
import path from 'node:path';
import type { IncomingMessage } from 'node:http';
import type { Config } from '../../../host/config.ts';
import { startTestService, type TestService, type TestServiceOptions } from '../../helpers/service.ts';
import { startHttpsServer, type HttpsTestServer } from '../datasets/helpers.ts';

export const SAMPLE_LOG = fs.readFileSync(path.join(import.meta.dirname, '../../../samples/customer_events.csv'), 'utf8');
export const LOG_PATH = '/customer_events.csv';

export interface LogOrigin {
  server: HttpsTestServer;
  url: string;
  /** Fetches of the log so far (refused ones included). */
  fetches(): number;
}

/** Serves `reply(req)` at LOG_PATH: the CSV text, or an HTTP status to refuse with. */
export async function startLogOrigin(reply: (req: IncomingMessage) => string | number = () => SAMPLE_LOG): Promise<LogOrigin> {
  let fetches = 0;
  const server = await startHttpsServer({
    [LOG_PATH]: (req, res) => {
      fetches++;
      const r = reply(req);
      if (typeof r === 'number') return void res.writeHead(r).end('refused');
      res.writeHead(200, { 'content-type': 'text/csv' }).end(r);
    },
  });
  return { server, url: `https://127.0.0.1:${server.port}${LOG_PATH}`, fetches: () => fetches };
}

/** A service that may fetch from the origin, looking for due schedules every 150 ms. */
export function startScheduleService(
  origin: LogOrigin,
  overrides: Partial<Config> = {},
  opts: TestServiceOptions = {},
): Promise<TestService> {
  return startTestService({ allowLoopbackFetchForTests: true, fetchCaPem: origin.server.cert, scheduleTickMs: 150, ...overrides }, opts);
}
