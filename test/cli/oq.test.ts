// The command line (bin/oq.mjs) run as a child process against the service as a real child process on
// loopback: a pending fit followed live, a stream dropped part-way and resumed with Last-Event-ID, a
// stream that cannot be read (polling), refusals and not_yet with their exit codes, problems in words,
// an operator key made with `oq keys`, a CSV file asked and uploaded, and a Verdict verified offline.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildService, type ChildService } from '../helpers/child-service.ts';
import { telcoParquet } from '../helpers/files.ts';
import { tempDir } from '../helpers/service.ts';

const root = path.resolve(import.meta.dirname, '../..');
const dataDir = tempDir('oq-cli-');
const work = tempDir('oq-cli-files-');
let svc: ChildService;
let testKey: string;
let liveKey: string;

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/** Runs `node bin/oq.mjs ...args` with the given environment (no terminal: progress prints as lines). */
function oq(args: string[], env: Record<string, string> = {}, stdin?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'bin/oq.mjs'), ...args], {
      cwd: work,
      env: { PATH: process.env.PATH, HOME: work, OQ_CONFIG: path.join(work, 'none.json'), ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
    child.stdin.end(stdin ?? '');
  });
}

const asTest = () => ({ OQ_URL: svc.url, OQ_API_KEY: testKey });

/**
 * A loopback proxy in front of the service that passes everything through, except that it can cut the
 * first `dropAfter` event streams after `events` events each, or answer every stream with 502. It records
 * the Last-Event-ID each stream was opened with.
 */
async function proxy(mode: { dropAfter?: number; events?: number; failStreams?: boolean }) {
  const lastEventIds: Array<string | null> = [];
  let streamsOpened = 0;
  const server = http.createServer((req, res) => {
    const isStream = /\/v1\/tasks\/[^/]+\/events/.test(req.url ?? '');
    if (isStream) {
      streamsOpened++;
      lastEventIds.push((req.headers['last-event-id'] as string | undefined) ?? null);
      if (mode.failStreams) {
        res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway');
        return;
      }
    }
    const cut = isStream && streamsOpened <= (mode.dropAfter ?? 0) ? (mode.events ?? 3) : Infinity;
    const target = new URL(req.url ?? '/', svc.url);
    const up = http.request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (ur) => {
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      let seen = 0;
      ur.on('data', (chunk: Buffer) => {
        if (cut === Infinity) return void res.write(chunk);
        // Pass whole events until `cut` of them went through, then drop the connection mid-stream.
        let text = chunk.toString('utf8');
        let keep = '';
        let at: number;
        while (seen < cut && (at = text.indexOf('\n\n')) >= 0) {
          const block = text.slice(0, at + 2);
          if (/^id: /m.test(block)) seen++;
          keep += block;
          text = text.slice(at + 2);
        }
        if (keep) res.write(keep);
        if (seen >= cut) {
          ur.destroy();
          res.socket?.destroy();
        } else if (text) res.write(text);
      });
      ur.on('end', () => res.end());
    });
    up.on('error', () => res.socket?.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, lastEventIds, streams: () => streamsOpened, close: () => new Promise((r) => server.close(r)) };
}

/** The events `--events` printed (JSON lines on stderr). */
function eventsOf(err: string): Array<{ id: number | null; event: string; data: any }> {
  return err
    .split('\n')
    .filter((l) => l.startsWith('{"id"'))
    .map((l) => JSON.parse(l));
}

beforeAll(async () => {
  svc = await startChildService(dataDir, { PENDING_WAIT_MS: '50' });
  const reg = await fetch(`${svc.url}/v1/agents/register`, { method: 'POST' });
  testKey = (await reg.json()).api_key;
  // A live key as an operator makes one: `oq keys create` on the machine, against the service's store.
  const made = await oq(['keys', 'create', '--workspace', 'cli-test', '--json'], { DATA_DIR: dataDir, DATABASE_URL: '' });
  expect(made.code, made.err).toBe(0);
  liveKey = JSON.parse(made.out).api_key;
}, 120_000);

afterAll(async () => {
  await svc?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(work, { recursive: true, force: true });
});

describe('oq ask', () => {
  it('follows a pending fit live (stages, bags, frac) and prints a readable answer; exit 0', async () => {
    const r = await oq(
      ['ask', 'sample:saas_churn', '--entity', 'customer_id', '--outcome', 'churned', '--type', 'score', '--ids', 'cust_0000,cust_0001'],
      asTest(),
    );
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/Fitting in the background: task tk_[0-9a-z]+/);
    // One line per change: the share done, the step and the engine's own message, bag by bag.
    expect(r.err).toMatch(/^\s+\d+%\s+binning\s+/m);
    expect(r.err).toMatch(/^\s+\d+%\s+fitting\s+.*fitting bag 1 of \d+/m);
    expect(r.err).toMatch(/^\s+\d+%\s+deciding\s+/m);
    expect(r.err).toMatch(/^\s+100%\s+signing\s+/m);
    expect(r.err).toMatch(/churned is answered/);
    const fracs = [...r.err.matchAll(/^\s+(\d+)%\s+\w+/gm)].map((m) => Number(m[1]));
    expect(fracs).toEqual([...fracs].sort((a, b) => a - b)); // the share done never goes back
    // The answer on stdout, and only the answer.
    expect(r.out).toMatch(/^churned \(score\): answered, AUC 0\.\d{3} on \d+ held-out rows, model mr1_[0-9a-f]{32}$/m);
    expect(r.out).toMatch(/^\s+case\s+chance\s+level\s+top reasons$/m);
    expect(r.out).toMatch(/^\s+cust_0000\s+\d+%\s+\w+\s+\S+/m);
    expect(r.out).toMatch(/^\s+cust_0001\s+\d+%\s+\w+\s+\S+/m);
    expect(r.out).not.toMatch(/fitting/);
  }, 120_000);

  it('on a terminal redraws the checklist in place and leaves it with every step done', async () => {
    // script(1) (util-linux) gives the command a pseudo-terminal; what it drew arrives on stdout.
    const cmd = [process.execPath, path.join(root, 'bin/oq.mjs'), 'ask', 'sample:b2b_leads', '--entity', 'lead_id']
      .concat(['--outcome', 'converted', '--type', 'score', '--ids', 'lead_0004'])
      .map((a) => `'${a}'`)
      .join(' ');
    const r = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const child = spawn('script', ['-qec', cmd, '/dev/null'], {
        cwd: work,
        env: { PATH: process.env.PATH, HOME: work, TERM: 'xterm', NO_COLOR: '1', OQ_CONFIG: path.join(work, 'none.json'), ...asTest() },
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, out }));
    });
    expect(r.code, r.out).toBe(0);
    const out = r.out.replace(/\r/g, '');
    expect(out).toMatch(/\x1b\[\d+A\x1b\[0J/); // cursor up, clear below: redrawn in place
    expect(out).toMatch(/▸ fitting {2}.*fitting bag \d+ of \d+ \[[#.]{20}\] \d+\/\d+ bags done/);
    // The last drawing: every step ticked, the bar full, then the answer.
    const last = out.slice(out.lastIndexOf('\x1b[0J'));
    for (const step of ['reading', 'binning', 'fitting', 'deciding', 'scoring', 'signing']) expect(last).toContain(`✔ ${step}`);
    expect(last).toMatch(/\[#{30}\] 100%/);
    expect(last).toMatch(/^converted \(score\): answered/m);
  }, 120_000);

  it('--json prints the reply the API gives; --events prints every event once, ids rising', async () => {
    const r = await oq(
      ['ask', 'sample:telco_churn', '--entity', 'account_id', '--outcome', 'churned', '--ids', 'acct_0001', '--json', '--events'],
      asTest(),
    );
    expect(r.code, r.err + r.out).toBe(0);
    const reply = JSON.parse(r.out);
    expect(reply.status).toBe('done');
    const events = eventsOf(r.err);
    expect(events.map((e) => e.event)).toContain('stage');
    expect(events.at(-1)?.event).toBe('done');
    const ids = events.map((e) => e.id);
    expect(ids).toEqual([...new Set(ids)].sort((a, b) => a! - b!));
  }, 120_000);

  it('resumes a dropped stream with Last-Event-ID: nothing shown twice, nothing missed', async () => {
    const p = await proxy({ dropAfter: 2, events: 3 });
    try {
      const r = await oq(
        ['ask', 'sample:b2b_leads', '--entity', 'lead_id', '--outcome', 'converted', '--desirable', '--ids', 'lead_0001', '--events'],
        { OQ_URL: p.url, OQ_API_KEY: testKey },
      );
      expect(r.code, r.err).toBe(0);
      expect(r.err).toMatch(/the event stream dropped; resuming after event \d+/);
      expect(p.streams()).toBeGreaterThanOrEqual(3);
      // The first stream starts fresh; each reopening names the last event the one before passed on.
      expect(p.lastEventIds[0]).toBeNull();
      const events = eventsOf(r.err);
      const ids = events.map((e) => e.id!);
      // Each reopening names the last event the client got (a cut may lose bytes in flight: then an
      // earlier one), and the service's ids count 1, 2, ... per task: the events shown run on without a
      // gap or a repeat across every drop.
      for (const last of p.lastEventIds.slice(1)) expect(ids).toContain(Number(last));
      for (let i = 1; i < ids.length; i++) expect(ids[i]).toBe(ids[i - 1] + 1);
      expect(events.at(-1)?.event).toBe('done');
      expect(r.out).toMatch(/^converted \(yesno\): answered/m);
    } finally {
      await p.close();
    }
  }, 120_000);

  it('falls back to polling when the stream cannot be read, and still shows progress', async () => {
    const p = await proxy({ failStreams: true });
    try {
      const r = await oq(['ask', 'sample:coin_flips', '--entity', 'flip_id', '--outcome', 'responded', '--ids', 'flip_0001'], {
        OQ_URL: p.url,
        OQ_API_KEY: testKey,
      });
      expect(r.err).toMatch(/following by polling \(the event stream answered 502\)/);
      expect(p.streams()).toBe(1);
      // The pending replies' progress is drawn instead of the stream's events.
      expect(r.err).toMatch(/^\s+\d+%\s+(reading|binning|fitting|deciding|scoring)\b/m);
      // coin_flips has no pattern: refused, in words, with its own exit code.
      expect(r.code, r.err).toBe(3);
      expect(r.out).toMatch(/^responded \(yesno\): REFUSED\. Nothing in the record held up on rows the model did not learn from\.$/m);
      expect(r.out).toMatch(/asking the same again gives the same/);
    } finally {
      await p.close();
    }
  }, 120_000);

  it('takes several questions from a JSON file and prints each', async () => {
    const file = path.join(work, 'questions.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        risk: { type: 'score', outcome_column: 'churned', outcome_is_desirable: false },
        order: { type: 'rank', outcome_column: 'churned', outcome_is_desirable: false, top_k: 3 },
      }),
    );
    const r = await oq(
      ['ask', 'sample:saas_churn', '--entity', 'customer_id', '--questions', file, '--ids', 'cust_0010', '--quiet'],
      asTest(),
    );
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^risk \(score\): answered/m);
    expect(r.out).toMatch(/^order \(rank\): answered/m);
    expect(r.out).toMatch(/^fits run: [01],/m); // one outcome, one fit for both
  }, 120_000);

  it('asks a CSV file with a live key; too few rows is not_yet in words, exit 3', async () => {
    const file = path.join(work, 'few.csv');
    const rows = ['id,visits,bought', ...Array.from({ length: 12 }, (_, i) => `c${i},${i % 5},${i % 3 === 0 ? 'yes' : 'no'}`)];
    fs.writeFileSync(file, rows.join('\n') + '\n');
    const r = await oq(['ask', file, '--entity', 'id', '--outcome', 'bought', '--ids', 'c1'], { OQ_URL: svc.url, OQ_API_KEY: liveKey });
    expect(r.code, r.err).toBe(3);
    expect(r.out).toMatch(/^bought \(yesno\): NOT YET\. /m);
    expect(r.out).toMatch(/Add rows, then ask again\./);
  }, 120_000);

  it('a problem is printed in words with its code, field and fix; exit 1. Bad usage: exit 2', async () => {
    const r = await oq(['ask', 'ds_aaaaaaaaaaaaaaaaaaaaaaaaaa', '--entity', 'id', '--outcome', 'x', '--ids', 'a'], asTest());
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^oq: \d{3} \w+: /m);
    expect(r.out).toBe('');
    const usage = await oq(['ask', 'sample:saas_churn', '--outcome', 'churned', '--ids', 'a'], asTest());
    expect(usage.code).toBe(2);
    expect(usage.err).toMatch(/--entity COLUMN is required/);
    const noKey = await oq(['ask', 'sample:saas_churn', '--entity', 'customer_id', '--outcome', 'churned', '--ids', 'a'], {
      OQ_URL: svc.url,
    });
    expect(noKey.code).toBe(2);
    expect(noKey.err).toMatch(/no API key: pass --key, set OQ_API_KEY/);
    const unknownFlag = await oq(['ask', '--nope'], asTest());
    expect(unknownFlag.code).toBe(2);
  }, 120_000);
});

describe('oq task, oq backtest', () => {
  it('oq task follows a task started elsewhere and prints its answer', async () => {
    // A fit no other test of this file runs (telco_churn, churned to avoid), so the ask goes pending.
    const started = await svc.post(
      '/v1/ask',
      {
        data: { dataset_id: 'sample:telco_churn' },
        entity_column: 'account_id',
        subject_kind: 'org',
        questions: { stays: { type: 'yesno', outcome_column: 'churned', outcome_is_desirable: false } },
        cases: { ids: ['acct_0007'] },
      },
      testKey,
    );
    expect(started.status).toBe(202);
    const r = await oq(['task', started.body.task_id], asTest());
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^stays \(yesno\): answered/m);
    expect(r.out).toMatch(/^\s+acct_0007\s+\d+%/m);
  }, 120_000);

  it('oq backtest sends a body file, shows the backtest steps and prints the reply as JSON', async () => {
    const body = path.join(work, 'backtest.json');
    fs.writeFileSync(body, JSON.stringify({ data: { dataset_id: 'sample:customer_events' }, subject_kind: 'org', cutoffs: { last: 3 } }));
    const r = await oq(['backtest', '--body', body], asTest());
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/^\s+\d+%\s+loading\s+/m);
    expect(r.err).toMatch(/^\s+\d+%\s+cutoff\s+Fit 1 of 3/m);
    expect(r.err).toMatch(/^\s+100%\s+grading\s+Grading 3 cutoffs/m);
    const reply = JSON.parse(r.out);
    expect(reply.status).toBe('done');
    expect(reply.cutoffs).toHaveLength(3);
    expect(reply.backtest_id).toMatch(/^bt_/);
  }, 180_000);
});

describe('oq upload, verify, config, --help', () => {
  it('uploads a CSV in pieces and asks it by dataset id', async () => {
    const file = path.join(work, 'shop.csv');
    const lines = ['id,visits,spend,bought'];
    for (let i = 0; i < 600; i++) lines.push(`s${i},${i % 17},${(i * 7) % 300},${(i % 17) + ((i * 7) % 300) / 40 > 12 ? 'yes' : 'no'}`);
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const up = await oq(['upload', file, '--json'], { OQ_URL: svc.url, OQ_API_KEY: liveKey });
    expect(up.code, up.err).toBe(0);
    expect(up.err).toMatch(/uploading shop\.csv \[#+\] 100%\s+piece 1 of 1/);
    const stored = JSON.parse(up.out);
    expect(stored).toMatchObject({ status: 'ready', rows: 600, columns: ['id', 'visits', 'spend', 'bought'], format: 'csv', pieces: 1 });
    const r = await oq(['ask', stored.dataset_id, '--entity', 'id', '--outcome', 'bought', '--ids', 's1,s2', '--quiet'], {
      OQ_URL: svc.url,
      OQ_API_KEY: liveKey,
    });
    expect(r.err).toBe('');
    expect([0, 3]).toContain(r.code);
    expect(r.out).toMatch(/^bought \(yesno\): /m);
  }, 120_000);

  it('asks a Parquet file: uploaded in pieces first, then asked by its dataset id', async () => {
    const file = path.join(work, 'telco.parquet');
    fs.writeFileSync(file, telcoParquet());
    const r = await oq(['ask', file, '--entity', 'customer_id', '--outcome', 'churn', '--ids', 'c00001,c00002'], {
      OQ_URL: svc.url,
      OQ_API_KEY: liveKey,
    });
    expect(r.err).toMatch(/uploading telco\.parquet \[#+\] 100%\s+piece 1 of 1/);
    expect(r.err).toMatch(/^stored as ds_[0-9a-z]{26}$/m);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^churn \(yesno\): answered/m);
    expect(r.out).toMatch(/^\s+c00001\s+\d+%/m);
  }, 180_000);

  it('verifies a Verdict offline against a saved JWKS; a changed byte is invalid (exit 3)', async () => {
    const r = await oq(
      ['ask', 'sample:saas_churn', '--entity', 'customer_id', '--outcome', 'churned', '--ids', 'cust_0003', '--json', '--quiet'],
      asTest(),
    );
    expect(r.code, r.err).toBe(0);
    const replyFile = path.join(work, 'reply.json');
    fs.writeFileSync(replyFile, r.out);
    const jwksFile = path.join(work, 'jwks.json');
    fs.writeFileSync(jwksFile, await (await fetch(`${svc.url}/.well-known/jwks.json`)).text());
    // Offline: the JWKS from the file, and a service URL nothing listens on.
    const offline = { OQ_URL: 'http://127.0.0.1:9' };
    const ok = await oq(['verify', replyFile, '--jwks', jwksFile], offline);
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toMatch(/^valid {2}\S+$/m);
    const reply = JSON.parse(r.out);
    const entry = reply.answers.churned.verdicts[0];
    const tampered = structuredClone(entry);
    const firstCase = tampered.verdict.cases?.[0] ?? tampered.verdict;
    if ('p' in firstCase) firstCase.p = Number(firstCase.p) === 0.5 ? 0.4 : 0.5;
    else tampered.verdict.expires_at = '2999-01-01T00:00:00.000Z';
    const bad = await oq(['verify', '-', '--jwks', jwksFile], offline, JSON.stringify(tampered));
    expect(bad.code).toBe(3);
    expect(bad.out).toMatch(/^invalid_signature/m);
    // Online: the keys fetched from the service.
    const online = await oq(['verify', '-'], { OQ_URL: svc.url }, JSON.stringify(entry));
    expect(online.code, online.err).toBe(0);
  }, 120_000);

  it('reads the URL and key from flags, then the environment, then the config file', async () => {
    const cfg = path.join(work, 'config.json');
    fs.writeFileSync(cfg, JSON.stringify({ url: 'http://example.test:1', api_key: 'svck_test_fromfile' }));
    const fromFile = await oq(['config'], { OQ_CONFIG: cfg });
    expect(fromFile.out).toMatch(/^url: http:\/\/example\.test:1 \(from .*config\.json\)$/m);
    expect(fromFile.out).toMatch(/^key: svck_test_from\.\.\. \(from .*config\.json\)$/m);
    const fromEnv = await oq(['config'], { OQ_CONFIG: cfg, OQ_URL: 'http://127.0.0.1:2' });
    expect(fromEnv.out).toMatch(/^url: http:\/\/127\.0\.0\.1:2 \(from OQ_URL\)$/m);
    const fromFlag = await oq(['config', '--url', 'http://127.0.0.1:3'], { OQ_CONFIG: cfg, OQ_URL: 'http://127.0.0.1:2' });
    expect(fromFlag.out).toMatch(/^url: http:\/\/127\.0\.0\.1:3 \(from flag\)$/m);
  }, 60_000);

  it('every command has --help (exit 0)', async () => {
    for (const cmd of ['ask', 'upload', 'verify', 'task', 'map', 'backtest', 'schedule', 'track-record', 'config']) {
      const r = await oq([cmd, '--help']);
      expect(r.code, cmd).toBe(0);
      expect(r.out, cmd).toMatch(new RegExp(`^usage: oq ${cmd}`));
    }
    const keys = await oq(['keys', '--help'], { DATA_DIR: dataDir });
    expect(keys.err + keys.out).toMatch(/create --workspace NAME/);
    const top = await oq(['--help']);
    expect(top.code).toBe(0);
    expect(top.out).toMatch(/Exit codes: 0 done/);
  }, 120_000);
});
