// `oq keys`: the operator's key command (host/cli/keys.ts) run against the server's own store, opened from
// the same environment as the server (DATABASE_URL, else SQLite under DATA_DIR). Only on the machine that
// runs the service: it reads the store directly, not the API.
import { ConfigError, configFromEnv } from '../../config.ts';
import { openStore, StoreError } from '../../store/index.ts';
import { runKeysCli } from '../keys.ts';
import type { Io } from './io.ts';

export async function runKeys(argv: string[], io: Io): Promise<number> {
  let store;
  try {
    const config = configFromEnv(io.env);
    store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, poolSize: 2 });
  } catch (err) {
    if (err instanceof ConfigError) io.err.write(`oq keys: configuration error: ${err.message}\n`);
    else if (err instanceof StoreError) io.err.write(`oq keys: ${err.message}\n`);
    else throw err;
    return 1;
  }
  try {
    return await runKeysCli(argv, store, { out: (l) => io.out.write(l + '\n'), err: (l) => io.err.write(l + '\n') });
  } finally {
    await store.close();
  }
}
