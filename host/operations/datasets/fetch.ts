// fetch_url (docs/reference/ask.md#data, docs/reference/datasets.md#add-dataset; docs/reference/datasets.md#fetch-url): https only, no redirects, public addresses only,
// connecting to the very address that was checked, with a size cap and a deadline.
import { promises as dns } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import tls from 'node:tls';
import { ServiceError } from '../../errors.ts';
import { LIMITS } from '../../schemas/common.ts';
import { parseCsv } from '../../table/csv.ts';
import type { RawTable } from '../../table/types.ts';
import type { OpContext } from '../../runtime/services.ts';
import { addressAllowed, classifyAddress } from './address.ts';
import type { Config } from '../../config.ts';
import type { UploadFormat } from '../../store/index.ts';
import { bytesAsAsyncBuffer } from '../../table/parquet.ts';
import { detectFormat } from './formats.ts';
import { csvPartsOf, readLimits, type TooLarge } from './stored-file.ts';

/** docs/reference/datasets.md#formats: a fetch_url download is at most 50 MB (a plain CSV also within the inline csv cap of characters). */
export const FETCH_MAX_BYTES = 50_000_000;

/** A download: CSV text as it came, or a gzip CSV or Parquet file (recognised by its bytes) to be read as CSV. */
export type Fetched = { format: 'csv'; text: string } | { format: Exclude<UploadFormat, 'csv'>; bytes: Buffer };

/** Headers the service sets itself (framing, routing, encoding); a caller may not send them. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'proxy-connection',
  'proxy-authorization',
  'expect',
  'accept-encoding',
]);
/** Connect failures after which the next checked address of the same host is tried. */
const NEXT_ADDRESS = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'ECONNRESET']);

interface Checked {
  address: string;
  family: 4 | 6;
}

const refused = (field: string, detail: string) => new ServiceError('fetch_refused', `${field}: ${detail}`, { field });
const failed = (field: string, detail: string) => new ServiceError('fetch_failed', `${field}: ${detail}`, { field });

/**
 * Downloads `url` and returns its text exactly (a BOM is kept, so the content hash covers every byte).
 * Too large (over 8,000,000 characters: docs/reference/datasets.md#fetch-url caps it at the inline csv cap of docs/reference/limits.md#limits)
 * is 422 invalid_request naming the field, as an inline csv over that cap is (docs/reference/errors.md#problem);
 * 413 is kept for request bodies, and this request's body was fine. The caller stores the file with
 * add-dataset upload: true instead. Refusals are 422 fetch_refused; download failures are 502 fetch_failed.
 */
export async function fetchRecord(ctx: OpContext, url: string, headers: Record<string, string>, field: string): Promise<Fetched> {
  const settings = ctx.services.config;
  const target = httpsTarget(url, field);
  const outgoing = outgoingHeaders(headers, field.replace(/fetch_url$/, 'fetch_headers'));
  const deadline = Date.now() + settings.fetchTimeoutMs;
  const addresses = await checkedAddresses(target.hostname.replace(/^\[|\]$/g, ''), settings, field, deadline);
  for (let i = 0; ; i++) {
    try {
      return await download(target, addresses[i], outgoing, settings, field, deadline);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (i + 1 < addresses.length && code !== undefined && NEXT_ADDRESS.has(code)) continue;
      throw toServiceError(err, field, settings);
    }
  }
}

/** docs/reference/datasets.md#fetch-url: a fetched body that is not CSV is fetch_failed (502), not a request error. */
export function parseFetchedCsv(text: string, field: string): RawTable {
  try {
    return parseCsv(text, { field });
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'invalid_request') throw failed(field, `the download is not CSV: ${err.message}`);
    throw err;
  }
}

function httpsTarget(url: string, field: string): URL {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new ServiceError('invalid_request', `${field}: must be an absolute URI`, { field });
  }
  if (target.protocol !== 'https:') throw refused(field, `only https URLs are fetched, got ${target.protocol.replace(/:$/, '')}`);
  if (target.username !== '' || target.password !== '') {
    throw new ServiceError('invalid_request', `${field}: credentials in the URL are not sent; use fetch_headers (Authorization)`, {
      field,
    });
  }
  return target;
}

function outgoingHeaders(headers: Record<string, string>, field: string): Record<string, string> {
  const out: Record<string, string> = { accept: 'text/csv, text/plain;q=0.9, */*;q=0.5', 'user-agent': 'outcome-question-service' };
  for (const [name, value] of Object.entries(headers)) {
    const at = `${field}.${name}`;
    try {
      http.validateHeaderName(name);
      http.validateHeaderValue(name, value);
    } catch {
      throw new ServiceError('invalid_request', `${at}: is not a valid HTTP header name and value`, { field: at });
    }
    if (RESERVED_HEADERS.has(name.toLowerCase())) {
      throw new ServiceError('invalid_request', `${at}: is set by the service and cannot be sent`, { field: at });
    }
    out[name.toLowerCase()] = value;
  }
  out['accept-encoding'] = 'identity';
  return out;
}

/** Resolves once; every address must be allowed (docs/reference/datasets.md#fetch-url: "the host's resolved addresses must all be public"). */
async function checkedAddresses(host: string, settings: Config, field: string, deadline: number): Promise<Checked[]> {
  let found: Array<{ address: string; family: number }>;
  const literal = isIP(host) !== 0;
  if (literal) found = [{ address: host, family: host.includes(':') ? 6 : 4 }];
  else {
    try {
      found = await withDeadline(dns.lookup(host, { all: true, verbatim: true }), deadline, () =>
        failed(field, `resolving the host ${host} took longer than ${settings.fetchTimeoutMs} ms`),
      );
    } catch (err) {
      if (err instanceof ServiceError) throw err;
      throw failed(field, `the host ${host} could not be resolved (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  if (found.length === 0) throw failed(field, `the host ${host} has no addresses`);
  for (const { address } of found) {
    const verdict = classifyAddress(address);
    if (!addressAllowed(verdict, settings.allowLoopbackFetchForTests)) {
      const what = literal ? `the address ${host}` : `the host ${host} resolves to ${address}, which`;
      throw refused(field, `${what} is ${verdict.why ?? 'not public'}; only public hosts are fetched`);
    }
  }
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

/** A lookup that answers with the checked address only, so the connection cannot follow a second DNS answer. */
export function pinnedLookup(checked: Checked): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [checked]);
    else callback(null, checked.address, checked.family);
  };
}

function download(
  target: URL,
  checked: Checked,
  headers: Record<string, string>,
  settings: Config,
  field: string,
  deadline: number,
): Promise<Fetched> {
  return new Promise<Fetched>((resolve, reject) => {
    const req = https.request(target, {
      method: 'GET',
      headers,
      agent: false,
      lookup: pinnedLookup(checked),
      ca: settings.fetchCaPem === null ? undefined : [...tls.rootCertificates, settings.fetchCaPem],
    });
    const timer = setTimeout(
      () => req.destroy(failed(field, `the download did not finish within ${settings.fetchTimeoutMs} ms`)),
      Math.max(0, deadline - Date.now()),
    );
    const fail = (err: unknown) => {
      clearTimeout(timer);
      req.destroy();
      reject(err);
    };
    req.on('error', fail);
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      // docs/reference/ask.md#answer: no redirects; a 3xx is a refusal, not something to follow.
      if (status >= 300 && status < 400)
        return fail(refused(field, `the server answered ${status} (a redirect); redirects are not followed`));
      if (status < 200 || status >= 300) return fail(failed(field, `the server answered HTTP ${status}`));
      const encoding = String(res.headers['content-encoding'] ?? 'identity').toLowerCase();
      if (encoding !== 'identity') return fail(failed(field, `the server sent a ${encoding}-encoded body; serve the CSV uncompressed`));
      const type = String(res.headers['content-type'] ?? '').toLowerCase();
      if (/^(text\/html|application\/xhtml\+xml)\b/.test(type)) return fail(failed(field, `the server sent ${type}, not CSV`));
      const declared = Number(res.headers['content-length'] ?? NaN);
      if (declared > FETCH_MAX_BYTES) return fail(tooLarge(field, true));
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.byteLength;
        if (size > FETCH_MAX_BYTES) return fail(tooLarge(field, true));
        chunks.push(chunk);
      });
      res.on('end', () => {
        clearTimeout(timer);
        const bytes = Buffer.concat(chunks, size);
        const format = detectFormat(bytes.subarray(0, 4));
        if (format !== 'csv') return resolve({ format, bytes });
        let text: string;
        try {
          // the text exactly (a BOM is kept, so the content hash covers every byte)
          text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
        } catch {
          return fail(failed(field, 'the download is not UTF-8 text, nor a gzip CSV or a Parquet file'));
        }
        // characters as the inline csv cap counts them: code points
        if (text.length > LIMITS.csvMax && codePoints(text) > LIMITS.csvMax) return fail(tooLarge(field));
        resolve({ format: 'csv', text });
      });
      res.on('error', fail);
    });
    req.end();
  });
}

function tooLarge(field: string, bytes = false): ServiceError {
  const cap = bytes
    ? `${FETCH_MAX_BYTES.toLocaleString('en-US')} bytes`
    : `${LIMITS.csvMax.toLocaleString('en-US')} characters (the inline csv cap; a gzip CSV or Parquet file may be up to 50 MB)`;
  return new ServiceError(
    'invalid_request',
    `${field}: the download is larger than the fetch_url cap of ${cap}; nothing was stored. Store a larger file with add-dataset upload: true`,
    { field },
  );
}

/** A fetched gzip CSV or Parquet file as something csvPartsOf reads. */
export function fetchedFile(f: Exclude<Fetched, { format: 'csv' }>) {
  return {
    chunks: async function* () {
      yield f.bytes;
    },
    buffer: bytesAsAsyncBuffer(f.bytes),
  };
}

/** A download whose CSV passes UPLOAD_MAX_BYTES: 422 naming the field (413 is for request bodies). */
export const downloadTooLarge =
  (field: string): TooLarge =>
  (what) =>
    new ServiceError('invalid_request', `${field}: the download cannot be read: ${what}; nothing was stored`, {
      field,
      remedy: 'Serve a file that holds at most UPLOAD_MAX_BYTES (the limit named) of CSV: fewer rows or columns, or a part of the table.',
    });

/**
 * A fetched gzip CSV or Parquet file as the CSV text it holds or renders to (docs/reference/datasets.md#formats), at most
 * UPLOAD_MAX_BYTES of it, stopped there while it inflates; a file that is not one is upload_corrupt naming `field`.
 */
export async function fetchedCsvText(f: Fetched, field: string, config: Config): Promise<string> {
  if (f.format === 'csv') return f.text;
  const parts = csvPartsOf(f.format, fetchedFile(f), readLimits(config, field, downloadTooLarge(field)));
  const out: Uint8Array[] = [];
  let size = 0;
  for (let r = await parts.next(); !r.done; r = await parts.next()) {
    size += r.value.payload.byteLength;
    out.push(r.value.payload);
  }
  return Buffer.concat(out, size).toString('utf8');
}

function toServiceError(err: unknown, field: string, settings: Config): ServiceError {
  if (err instanceof ServiceError) return err;
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ETIMEDOUT') return failed(field, `the download did not finish within ${settings.fetchTimeoutMs} ms`);
  return failed(field, `the download failed (${e.code ?? 'error'}: ${e.message})`);
}

async function withDeadline<T>(work: Promise<T>, deadline: number, late: () => ServiceError): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Unicode code points of `text` (UTF-16 units less the surrogate pairs). */
function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}
