// The real service in a process of its own (so its memory is measured alone, or it can be killed):
// argv = DATA_DIR and JSON config overrides; prints {url, key, workspaceId, pid} as one line once listening.
import { pino } from 'pino';
import { startService } from '../../../host/main.ts';
import { createLiveKey } from '../../../host/runtime/keys.ts';

const [dataDir, overrides = '{}'] = process.argv.slice(2);
const running = await startService(
  { port: 0, dataDir, ...(JSON.parse(overrides) as object) },
  { log: pino({ level: 'silent' }), hostname: '127.0.0.1', env: {} },
);
// measured from here: the threads WARM_THREADS starts at boot are up (their memory is not the test's)
await running.warmed;
const { key, record } = await createLiveKey(running.services.store, { workspaceName: 'child', now: Date.now() });
process.stdout.write(JSON.stringify({ url: running.url, key, workspaceId: record.workspace_id, pid: process.pid }) + '\n');
process.once('SIGTERM', () => void running.close().then(() => process.exit(0)));
