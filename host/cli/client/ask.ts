// `oq ask`: builds an ask from a file, a stored dataset or a sample and questions given as flags or a JSON
// file, sends it, follows a pending fit live (progress.ts) and prints the answer (render.ts) or its JSON.
import fs from 'node:fs';
import path from 'node:path';
import type { AskReply, ServiceClient, StreamEvent } from '../../client/client.ts';
import { formatOf, uploadFile } from '../../client/upload.ts';
import { UsageError } from './config.ts';
import { ProgressDisplay } from './progress.ts';
import { renderReply } from './render.ts';
import type { Io } from './io.ts';

export const ASK_OPTIONS = {
  entity: { type: 'string' },
  outcome: { type: 'string' },
  type: { type: 'string' },
  name: { type: 'string' },
  desirable: { type: 'boolean' },
  undesirable: { type: 'boolean' },
  'positive-values': { type: 'string' },
  questions: { type: 'string' },
  ids: { type: 'string' },
  open: { type: 'boolean' },
  cases: { type: 'string' },
  'time-column': { type: 'string' },
  'subject-kind': { type: 'string' },
  person: { type: 'boolean' },
  namespace: { type: 'string' },
  band: { type: 'boolean' },
  request: { type: 'string' },
  events: { type: 'boolean' },
  quiet: { type: 'boolean' },
  poll: { type: 'boolean' },
} as const;

export const ASK_HELP = `usage: oq ask <SOURCE> --entity COLUMN (--outcome COLUMN | --questions FILE) [cases] [options]

Asks about the cases of a record and prints the answer. A fit that takes longer than the service waits is
followed live: each stage, the bags of the fit and the share done, from the task's event stream.

SOURCE is one of:
  FILE.csv                      a CSV file (sent inline up to 8,000,000 characters, uploaded in pieces above)
  FILE.parquet, FILE.csv.gz     uploaded in pieces first, then asked by its dataset id
  ds_...                        a stored dataset
  sample:NAME                   a sample (a test key works on these)

Questions (one from flags, or several from a JSON file):
  --outcome COLUMN              the yes/no column to learn
  --type yesno|score|rank       the question's type (default yesno); choice questions go in --questions
  --name NAME                   the question's name (default: the outcome column)
  --desirable / --undesirable   whether the outcome is wanted (needed for levers)
  --positive-values A,B         the values that mean yes, when the service cannot tell
  --questions FILE.json         a map of name -> question, as the API takes them

Cases (a rank needs none):
  --ids A,B,C                   entity ids in the record
  --open                        today's open cases (rows whose outcome is blank)
  --cases FILE.json             new cases: a JSON array of rows

Options:
  --entity COLUMN               the column naming each case (required)
  --time-column COLUMN          the column ordering rows
  --subject-kind KIND           person, org, object, event or other (default other)
  --person                      the cases are people (subject_kind person, decision support acknowledged)
  --namespace NAME              keep models apart inside the workspace
  --band                        add act / escalate / refuse bands
  --request FILE.json           any other ask fields, merged under the ones above
  --json                        print the whole reply as JSON on stdout
  --events                      print every event of the task as a JSON line on stderr
  --quiet                       no progress display
  --poll                        follow the task by polling instead of its event stream

Exit codes: 0 every question answered, 3 a question refused or not yet answerable, 1 an error, 2 bad usage.`;

type AskValues = { [K in keyof typeof ASK_OPTIONS]?: (typeof ASK_OPTIONS)[K]['type'] extends 'string' ? string : boolean } & {
  json?: boolean;
};

/** A CSV above this many bytes is uploaded rather than sent inline (8,000,000 code points, less a margin). */
const INLINE_CSV_BYTES = 7_500_000;

export async function buildAsk(client: ServiceClient, source: string, v: AskValues, io: Io): Promise<Record<string, unknown>> {
  const base: Record<string, unknown> = v.request ? readJson(v.request, '--request') : {};
  const body: Record<string, unknown> = { ...base };
  if (/^ds_[0-9a-z]+$/.test(source) || source.startsWith('sample:')) body.data = { dataset_id: source };
  else {
    if (!fs.existsSync(source)) {
      throw new UsageError(`${source} is not a file, a dataset id (ds_...) or a sample (sample:NAME)`);
    }
    const bytes = fs.readFileSync(source);
    if (formatOf(bytes) === 'csv' && bytes.length <= INLINE_CSV_BYTES) body.data = { csv: bytes.toString('utf8') };
    else {
      const stored = await uploadWithBar(client, bytes, path.basename(source), io, v.quiet === true);
      body.data = { dataset_id: stored.dataset_id };
    }
  }
  if (v.entity) body.entity_column = v.entity;
  if (!body.entity_column) throw new UsageError('--entity COLUMN is required: the column that names each case');
  if (v['time-column']) body.time_column = v['time-column'];
  if (v.person) {
    body.subject_kind = 'person';
    body.acknowledge_decision_support = true;
  } else if (v['subject-kind']) body.subject_kind = v['subject-kind'];
  body.subject_kind ??= 'other';
  if (v.namespace) body.namespace = v.namespace;
  if (v.band) body.band = true;

  if (v.questions) body.questions = readJson(v.questions, '--questions');
  else if (v.outcome) {
    const type = v.type ?? 'yesno';
    if (!['yesno', 'score', 'rank', 'choice'].includes(type)) throw new UsageError(`--type ${type}: one of yesno, score, rank`);
    const q: Record<string, unknown> = { type, outcome_column: v.outcome };
    if (v.desirable) q.outcome_is_desirable = true;
    if (v.undesirable) q.outcome_is_desirable = false;
    if (v['positive-values']) q.positive_values = v['positive-values'].split(',');
    body.questions = { [(v.name ?? v.outcome).replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64)]: q };
  }
  if (!body.questions) throw new UsageError('give a question: --outcome COLUMN, or --questions FILE.json');

  if (v.ids)
    body.cases = {
      ids: v.ids
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    };
  else if (v.open) body.cases = { open: true };
  else if (v.cases) body.cases = { rows: readJson(v.cases, '--cases') };
  const types = Object.values(body.questions as Record<string, { type?: string }>).map((q) => q?.type);
  if (!body.cases && types.some((t) => t !== 'rank')) {
    throw new UsageError('say which cases to answer about: --ids A,B,C, --open or --cases FILE.json (a rank needs none)');
  }
  return body;
}

async function uploadWithBar(client: ServiceClient, bytes: Uint8Array, filename: string, io: Io, quiet: boolean) {
  const stored = await uploadFile(client, bytes, {
    filename,
    onProgress: (p) => {
      if (quiet) return;
      const frac = p.bytesSent / p.bytesTotal;
      const full = Math.round(frac * 30);
      const line = `uploading ${filename} [${'#'.repeat(full)}${'.'.repeat(30 - full)}] ${Math.floor(frac * 100)}%  piece ${p.piece} of ${p.pieces}`;
      io.err.write(io.err.live ? `\r\x1b[2K${line}` : `${line}\n`);
    },
  });
  if (!quiet && io.err.live) io.err.write('\n');
  if (!quiet) io.err.write(`stored as ${stored.dataset_id}\n`);
  return stored;
}

function readJson(file: string, flag: string): any {
  try {
    return JSON.parse(fs.readFileSync(file === '-' ? 0 : file, 'utf8'));
  } catch (err) {
    throw new UsageError(`${flag} ${file}: ${(err as Error).message}`);
  }
}

/** Sends `body`, follows it while pending, prints the answer; returns the exit code. */
export async function sendAndShow(
  client: ServiceClient,
  body: Record<string, unknown>,
  opts: { json?: boolean; events?: boolean; quiet?: boolean; poll?: boolean; path?: string },
  io: Io,
  show: (reply: any) => string = (r) => renderReply(r as AskReply),
): Promise<number> {
  // With --events the JSON lines share stderr with the display: it prints lines then, never redraws over them.
  const live = io.err.live && !opts.events;
  const progress = new ProgressDisplay({ write: (t) => io.err.write(t), live, colour: io.err.colour });
  const quiet = opts.quiet === true;
  const onEvent = (e: StreamEvent) => {
    if (opts.events) io.err.write(JSON.stringify({ id: e.id, event: e.event, data: e.data }) + '\n');
    if (quiet) return;
    if (e.event === 'stage') progress.stage(e.data);
    else if (e.event === 'answer') progress.answer(e.data.question, e.data.state, e.data.reasons);
  };
  const first = opts.path === undefined || opts.path === '/v1/ask' ? await client.ask(body) : (await client.post(opts.path, body)).body;
  let reply = first;
  if (first?.status === 'pending') {
    if (!quiet) {
      progress.start(first.task_id, first.watch_url);
      if (first.progress?.stage) progress.stage({ ...first.progress, step: first.progress.stage, stage: first.stage });
    }
    const onPending = (p: any) => {
      if (!quiet && p.progress) progress.stage({ ...p.progress, step: p.progress.stage, stage: p.stage, elapsed_ms: p.elapsed_ms });
    };
    reply = opts.poll
      ? await client.pollUntilDone(first.task_id, onPending)
      : await client.follow(first.task_id, {
          onEvent,
          onPending,
          onReconnect: (last) => !quiet && progress.note(`the event stream dropped; resuming after event ${last ?? 'none'}`),
          onPolling: (why) => !quiet && progress.note(`following by polling (${why})`),
        });
    progress.finish();
  }
  io.out.write(opts.json ? JSON.stringify(reply, null, 2) + '\n' : show(reply));
  const states = Object.values((reply?.answers ?? {}) as Record<string, { state?: string }>).map((a) => a?.state);
  return states.some((s) => s === 'refused' || s === 'not_yet') ? 3 : 0;
}
