// Operator CLI for live keys (docs/reference/auth.md): `node dist/cli/keys.js create --workspace NAME
// [--can-report-outcomes]` on a built install (`npm run keys -- ...` in a checkout), `list [--workspace NAME]`, `revoke KEY_ID`, and `rotate-signing-key` for the
// Verdict signing key; add --json for machine-readable output.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { openStore, StoreError, type Store } from '../store/index.ts';
import { ConfigError, configFromEnv } from '../config.ts';
import { createLiveKey, listKeys, revokeKey } from '../runtime/keys.ts';
import { KeyRing } from '../signing/index.ts';

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  now?: () => number;
}

const USAGE = [
  'usage: node dist/cli/keys.js <command> [--json]   (in a checkout: npm run keys -- <command> [--json])',
  '  create --workspace NAME [--can-report-outcomes]   make a live key (printed once)',
  '  list [--workspace NAME]                           list keys (never the keys themselves)',
  '  revoke KEY_ID                                     revoke a key at once',
  '  rotate-signing-key                                a new Verdict signing key; the old one stays published',
  "The store is the server's: PostgreSQL at DATABASE_URL when set, else SQLite under DATA_DIR (default ./data).",
].join('\n');

/** `--help`, `-h` or `help` anywhere: print the usage and touch no store. */
const wantsHelp = (argv: string[]) => argv.some((a) => a === '--help' || a === '-h' || a === 'help');

/** Runs one command against `store`; returns the process exit code. */
export async function runKeysCli(argv: string[], store: Store, io: CliIo): Promise<number> {
  if (wantsHelp(argv)) {
    io.out(USAGE);
    return 0;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        workspace: { type: 'string' },
        'can-report-outcomes': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
      },
    });
  } catch (err) {
    io.err(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  const now = (io.now ?? Date.now)();
  const print = (json: unknown, text: string) => io.out(values.json ? JSON.stringify(json) : text);

  if (command === 'create' && rest.length === 0) {
    const name = values.workspace?.trim();
    if (!name) {
      io.err(`create needs --workspace NAME\n${USAGE}`);
      return 2;
    }
    const { key, record, workspace } = await createLiveKey(store, {
      workspaceName: name,
      canReportOutcomes: values['can-report-outcomes'],
      now,
    });
    const scopes = record.scopes.length > 0 ? record.scopes.join(', ') : 'none';
    print(
      { api_key: key, key_id: record.id, workspace: workspace.name, workspace_id: workspace.id, scopes: record.scopes },
      [
        `Created live key ${record.id} in workspace ${workspace.name} (${workspace.id}); scopes: ${scopes}.`,
        'The key is shown this once; store it now:',
        key,
      ].join('\n'),
    );
    return 0;
  }
  if (command === 'list' && rest.length === 0) {
    const keys = await listKeys(store, values.workspace);
    const lines = keys.map((k) =>
      [
        k.id,
        `${k.prefix}...`,
        k.mode,
        k.workspace,
        k.scopes.join(',') || '-',
        k.created_at,
        k.revoked_at ? `revoked ${k.revoked_at}` : 'active',
      ].join('  '),
    );
    print(keys, lines.length > 0 ? lines.join('\n') : 'No keys.');
    return 0;
  }
  if (command === 'revoke' && rest.length === 1) {
    const revoked = await revokeKey(store, rest[0], now);
    if (!revoked) {
      if (values.json) io.out(JSON.stringify({ key_id: rest[0], revoked: false }));
      io.err(`No active key ${rest[0]} (unknown or already revoked).`);
      return 1;
    }
    print({ key_id: rest[0], revoked: true }, `Revoked ${rest[0]}; it now answers 401.`);
    return 0;
  }
  if (command === 'rotate-signing-key' && rest.length === 0) {
    // Saved in the store: running nodes verify its Verdicts at once (an unknown kid makes them reload)
    // and sign with it from their next reload (SIGNING_KEY_RELOAD_MS).
    const ring = await KeyRing.open(store, { now: () => now });
    const retired = ring.activeKid;
    const kid = await ring.rotate();
    print(
      { kid, retired_kid: retired },
      `New signing key ${kid}; ${retired} is retired and still published, so Verdicts it signed keep verifying. ` +
        'Running servers sign with the new key within SIGNING_KEY_RELOAD_MS (default 60 s).',
    );
    return 0;
  }
  io.err(USAGE);
  return 2;
}

async function main(): Promise<void> {
  // The same configuration as the server (host/config.ts): the same DATA_DIR, the same store.
  if (wantsHelp(process.argv.slice(2))) {
    console.log(USAGE); // before the store is opened: asking how to use it should not create ./data
    return;
  }
  const config = configFromEnv(process.env);
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, poolSize: 2 });
  try {
    process.exitCode = await runKeysCli(process.argv.slice(2), store, {
      out: (line) => console.log(line),
      err: (line) => console.error(line),
    });
  } finally {
    await store.close();
  }
}

/** The command line: `node dist/cli/keys.js ...` on a built install, `npm run keys -- ...` in a checkout. */
export async function runKeys(): Promise<void> {
  await main().catch((err: unknown) => {
    // A bad setting is the operator's to fix: say which, without a stack trace (as the server does).
    console.error(err instanceof ConfigError ? `configuration error: ${err.message}` : err instanceof StoreError ? err.message : err);
    process.exit(1);
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await runKeys();
