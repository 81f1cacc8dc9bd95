// `oq`, the service's command line (docs/guides/command-line.md): one function per command, each with its
// own --help. Arguments are read with node's util.parseArgs (strict: an unknown flag is a usage error).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ServiceClient, ServiceError } from '../../client/client.ts';
import { uploadFile } from '../../client/upload.ts';
import { verifyVerdict } from '../../signing/verdict.ts';
import { ASK_HELP, ASK_OPTIONS, buildAsk, sendAndShow } from './ask.ts';
import { configPath, resolveConnection, UsageError } from './config.ts';
import { renderReply } from './render.ts';
import type { Io } from './io.ts';

export const EXIT = { ok: 0, error: 1, usage: 2, notAnswered: 3 } as const;

const GLOBAL_OPTIONS = {
  url: { type: 'string' },
  key: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const CONNECTION_HELP = `Connection (every command that calls the service):
  --url URL      the service (else OQ_URL, else the config file, else http://127.0.0.1:8787)
  --key KEY      the API key (else OQ_API_KEY, else the config file)
  The config file is JSON {"url": ..., "api_key": ...} at OQ_CONFIG or ~/.config/oq/config.json.`;

const HELP = `usage: oq <command> [options]        oq <command> --help for each

Commands:
  ask           ask about the cases of a CSV file, a stored dataset or a sample; live progress while it fits
  upload        store a file of any size (CSV, gzip CSV, Parquet) as a dataset, in pieces
  verify        check a Verdict's signature offline against the service's public keys
  task          follow a pending task (an ask, a backtest) to its reply
  map           propose how the tables of a log become cases (POST /v1/map)
  backtest      replay a question at past cutoffs and grade it (POST /v1/backtest)
  schedule      run an ask on a schedule (POST /v1/schedule)
  track-record  what a model said and what happened (POST /v1/track-record)
  keys          operator: make, list and revoke live keys (on the machine that runs the service)
  config        show where the URL and key come from

${CONNECTION_HELP}

Exit codes: 0 done (every question answered), 3 refused or not yet (or a Verdict that does not verify),
1 an error (the service's problem is printed), 2 bad usage.`;

const UPLOAD_HELP = `usage: oq upload FILE [--json]

Stores FILE (CSV, gzip CSV or Parquet, up to the service's UPLOAD_MAX_BYTES) as a dataset, in pieces of at
most 4,000,000 bytes with a progress bar, and prints its dataset id; ask it with \`oq ask ds_...\`.

${CONNECTION_HELP}`;

const VERIFY_HELP = `usage: oq verify FILE [--jwks JWKS.json] [--json]

Checks every Verdict in FILE (one {verdict, signature} entry, a list of them, or a whole ask reply) against
the service's public keys, on this machine: from JWKS.json when given (saved from /.well-known/jwks.json),
else fetched once from the service. Prints valid, expired, invalid_signature or unknown_key for each.
Exit code 0 when all are valid, 3 otherwise. FILE - reads stdin.

${CONNECTION_HELP}`;

const TASK_HELP = `usage: oq task TASK_ID [--json] [--events] [--quiet] [--poll]

Follows a pending task to its reply with the same live progress as ask, and prints the reply.

${CONNECTION_HELP}`;

const BODY_HELP = (cmd: string, route: string, what: string) => `usage: oq ${cmd} --body FILE.json [--json] [--events] [--quiet]

${what} Sends FILE.json (the request as the API takes it; - reads stdin) to ${route}, follows the task
with live progress when the reply is pending, and prints the reply as JSON.

${CONNECTION_HELP}`;

const BODY_COMMANDS: Record<string, { route: string; what: string }> = {
  map: { route: '/v1/map', what: 'Proposes how the tables of a log become a record of cases.' },
  backtest: { route: '/v1/backtest', what: 'Replays a question at past cutoffs and grades what it said.' },
  schedule: { route: '/v1/schedule', what: 'Schedules an ask to run again on new data.' },
  'track-record': { route: '/v1/track-record', what: "A model's track record: what it said, what happened." },
};

export async function runCli(argv: string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (!command || command === '--help' || command === '-h' || command === 'help') {
      io.out.write(HELP + '\n');
      return command ? EXIT.ok : EXIT.usage;
    }
    if (command === 'keys') {
      // Loaded only here: it opens the store (SQLite or PostgreSQL), which no other command needs.
      const { runKeys } = await import('./keys.ts');
      return await runKeys(rest, io);
    }
    if (command === 'ask') return await ask(rest, io);
    if (command === 'upload') return await upload(rest, io);
    if (command === 'verify') return await verify(rest, io);
    if (command === 'task') return await task(rest, io);
    if (command === 'config') return config(rest, io);
    if (command in BODY_COMMANDS) return await bodyCommand(command, rest, io);
    throw new UsageError(`unknown command ${command}; oq --help lists them`);
  } catch (err) {
    return report(err, io);
  }
}

function parse<O extends Record<string, { type: 'string' | 'boolean'; short?: string }>>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options: { ...GLOBAL_OPTIONS, ...options }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function clientOf(values: { url?: string; key?: string }, io: Io, needKey = true): ServiceClient {
  const conn = resolveConnection(values, io.env);
  if (needKey && !conn.apiKey) {
    throw new UsageError(
      `no API key: pass --key, set OQ_API_KEY, or put "api_key" in ${configPath(io.env)} ` +
        `(a test key for the samples: curl -X POST ${conn.url}/v1/agents/register)`,
    );
  }
  return new ServiceClient({
    baseUrl: conn.url,
    apiKey: conn.apiKey,
    onRetry: ({ status, waitMs }) =>
      io.err.write(
        `${status ? `the service answered ${status}` : 'could not reach the service'}; retrying in ${(waitMs / 1000).toFixed(1)} s\n`,
      ),
  });
}

function help(values: { help?: boolean }, text: string, io: Io): boolean {
  if (values.help) io.out.write(text + '\n');
  return values.help === true;
}

async function ask(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, ASK_OPTIONS);
  if (help(values, ASK_HELP, io)) return EXIT.ok;
  if (positionals.length !== 1) throw new UsageError(`ask takes one SOURCE (a file, ds_... or sample:NAME)\n\n${ASK_HELP}`);
  const client = clientOf(values, io);
  const body = await buildAsk(client, positionals[0], values, io);
  return sendAndShow(client, body, values, io);
}

async function upload(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, {});
  if (help(values, UPLOAD_HELP, io)) return EXIT.ok;
  if (positionals.length !== 1) throw new UsageError(`upload takes one FILE\n\n${UPLOAD_HELP}`);
  const file = positionals[0];
  if (!fs.existsSync(file)) throw new UsageError(`${file}: no such file`);
  const client = clientOf(values, io);
  const bytes = fs.readFileSync(file);
  const name = path.basename(file);
  const done = await uploadFile(client, bytes, {
    filename: name,
    onProgress: (p) => {
      const frac = p.bytesSent / p.bytesTotal;
      const full = Math.round(frac * 30);
      const line = `uploading ${name} [${'#'.repeat(full)}${'.'.repeat(30 - full)}] ${Math.floor(frac * 100)}%  piece ${p.piece} of ${p.pieces}`;
      io.err.write(io.err.live ? `\r\x1b[2K${line}${p.piece === p.pieces ? '\n' : ''}` : `${line}\n`);
    },
  });
  const size =
    done.rows !== null && done.rows !== undefined
      ? `${done.rows} rows, ${Array.isArray(done.columns) ? done.columns.length : done.columns} columns`
      : `${done.format} file`;
  io.out.write(
    values.json ? JSON.stringify(done, null, 2) + '\n' : `${done.dataset_id}  (${size}, ${done.pieces} pieces, ${done.bytes} bytes)\n`,
  );
  return EXIT.ok;
}

async function verify(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, { jwks: { type: 'string' } });
  if (help(values, VERIFY_HELP, io)) return EXIT.ok;
  if (positionals.length !== 1) throw new UsageError(`verify takes one FILE\n\n${VERIFY_HELP}`);
  let doc: unknown;
  try {
    doc = JSON.parse(fs.readFileSync(positionals[0] === '-' ? 0 : positionals[0], 'utf8'));
  } catch (err) {
    throw new UsageError(`${positionals[0]}: ${(err as Error).message}`);
  }
  const entries = verdictsIn(doc);
  if (entries.length === 0) throw new UsageError(`${positionals[0]} holds no {verdict, signature} entry`);
  let jwks: { keys: any[] };
  if (values.jwks) {
    try {
      jwks = JSON.parse(fs.readFileSync(values.jwks, 'utf8'));
    } catch (err) {
      throw new UsageError(`--jwks ${values.jwks}: ${(err as Error).message}`);
    }
  } else jwks = await clientOf(values, io, false).jwks();
  const results: Array<{ verdict_id: unknown; status: string }> = [];
  for (const e of entries) {
    const status = await verifyVerdict(jwks as never, e.verdict, e.signature);
    results.push({ verdict_id: (e.verdict as { verdict_id?: unknown })?.verdict_id ?? null, status });
  }
  io.out.write(
    values.json
      ? JSON.stringify(results, null, 2) + '\n'
      : results.map((r) => `${r.status}  ${r.verdict_id ?? '(no verdict_id)'}`).join('\n') + '\n',
  );
  return results.every((r) => r.status === 'valid') ? EXIT.ok : EXIT.notAnswered;
}

/** Every {verdict, signature} pair in a document: an entry, a list, or a reply's answers. */
function verdictsIn(doc: unknown): Array<{ verdict: unknown; signature: unknown }> {
  const out: Array<{ verdict: unknown; signature: unknown }> = [];
  const walk = (v: unknown, depth: number) => {
    if (depth > 6 || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) return v.forEach((x) => walk(x, depth + 1));
    const o = v as Record<string, unknown>;
    if (o.verdict && o.signature) return void out.push({ verdict: o.verdict, signature: o.signature });
    for (const key of ['answers', 'verdicts']) if (o[key]) walk(o[key], depth + 1);
    if (!('answers' in o) && !('verdicts' in o)) Object.values(o).forEach((x) => walk(x, depth + 1));
  };
  walk(doc, 0);
  return out;
}

async function task(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, { events: { type: 'boolean' }, quiet: { type: 'boolean' }, poll: { type: 'boolean' } });
  if (help(values, TASK_HELP, io)) return EXIT.ok;
  if (positionals.length !== 1) throw new UsageError(`task takes one TASK_ID\n\n${TASK_HELP}`);
  const client = clientOf(values, io);
  // The task's current state first: a pending reply to start the display from, or the finished reply.
  const pending = await client.poll(positionals[0]);
  const body = { task_id: positionals[0] };
  // An ask's reply reads as ask prints it; anything else (a backtest) as JSON.
  const show = (r: any) => (!values.json && r?.answers ? renderReply(r) : JSON.stringify(r, null, 2) + '\n');
  if (pending.status !== 'pending') {
    io.out.write(show(pending));
    return exitOf(pending);
  }
  return sendAndShow(client, body, { ...values, path: '/v1/poll' }, io, show);
}

async function bodyCommand(cmd: string, argv: string[], io: Io): Promise<number> {
  const { route, what } = BODY_COMMANDS[cmd];
  const text = BODY_HELP(cmd, route, what);
  const { values, positionals } = parse(argv, { body: { type: 'string' }, events: { type: 'boolean' }, quiet: { type: 'boolean' } });
  if (help(values, text, io)) return EXIT.ok;
  if (!values.body || positionals.length > 0) throw new UsageError(`${cmd} takes --body FILE.json\n\n${text}`);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(fs.readFileSync(values.body === '-' ? 0 : values.body, 'utf8'));
  } catch (err) {
    throw new UsageError(`--body ${values.body}: ${(err as Error).message}`);
  }
  const client = clientOf(values, io);
  return sendAndShow(client, body, { ...values, path: route }, io, (r) => JSON.stringify(r, null, 2) + '\n');
}

function config(argv: string[], io: Io): number {
  const { values } = parse(argv, {});
  if (
    help(values, `usage: oq config\n\nShows the service URL and whether a key is set, and where each came from.\n\n${CONNECTION_HELP}`, io)
  ) {
    return EXIT.ok;
  }
  const conn = resolveConnection(values, io.env);
  const key = conn.apiKey ? `${conn.apiKey.slice(0, 14)}... (from ${conn.from.apiKey})` : 'none';
  io.out.write(`url: ${conn.url} (from ${conn.from.url})\nkey: ${key}\nconfig file: ${configPath(io.env)}\n`);
  return EXIT.ok;
}

function exitOf(reply: any): number {
  const states = Object.values((reply?.answers ?? {}) as Record<string, { state?: string }>).map((a) => a?.state);
  return states.some((s) => s === 'refused' || s === 'not_yet') ? EXIT.notAnswered : EXIT.ok;
}

/** A problem in plain words on stderr: what went wrong, the field, and the fix the service gave. */
function report(err: unknown, io: Io): number {
  if (err instanceof UsageError) {
    io.err.write(`oq: ${err.message}\n`);
    return EXIT.usage;
  }
  if (err instanceof ServiceError) {
    const p = err.problem;
    const lines = [`oq: ${err.status ? `${err.status} ` : ''}${p.code ?? p.title ?? 'error'}: ${p.detail ?? p.title ?? ''}`];
    if (p.field) lines.push(`  field: ${p.field}`);
    if (p.remedy) lines.push(`  fix: ${p.remedy}`);
    if (p.doc_url) lines.push(`  more: ${p.doc_url}`);
    io.err.write(lines.join('\n') + '\n');
    return EXIT.error;
  }
  io.err.write(`oq: ${(err as Error)?.message ?? String(err)}\n`);
  return EXIT.error;
}
