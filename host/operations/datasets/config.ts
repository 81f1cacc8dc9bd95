// The dataset settings this module reads from Config, with their defaults (wire.md "Datasets", "fetch_url").
import type { Config } from '../../services.ts';

/** Config fields the dataset operations read; optional until they are declared on Config itself. */
export interface DatasetSettings {
  /** wire.md "fetch_url": tests may reach a loopback https host; never other private addresses. Default false. */
  allowLoopbackFetchForTests: boolean;
  /** Extra PEM CA(s) trusted for fetch_url besides the system roots (tests: a self-signed CA). */
  fetchCaPem: string | undefined;
  /** Whole-download deadline for fetch_url. Default 30 s. */
  fetchTimeoutMs: number;
  /** wire.md "Datasets": largest PUT upload body in bytes. Default 100 MB. */
  maxUploadBytes: number;
  /**
   * An upload is stored in parts of about this many bytes, cut at row boundaries (upload.ts). Default 1 MiB:
   * SQLite holds a few copies of a part while storing it (measured: 4 MiB parts peak ~15 MB higher).
   */
  uploadPartBytes: number;
  /** Longest row an upload may hold; with uploadPartBytes it bounds an upload's memory. Default 8,000,000 bytes. */
  maxUploadRowBytes: number;
}

export const DEFAULT_FETCH_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_UPLOAD_BYTES = 100_000_000;
export const DEFAULT_UPLOAD_PART_BYTES = 1024 * 1024;
/** The inline csv cap (spec 8, 8,000,000 characters) read as bytes: no one row may be larger than a whole inline csv. */
export const DEFAULT_MAX_UPLOAD_ROW_BYTES = 8_000_000;

export function datasetSettings(config: Config): DatasetSettings {
  const c = config as Config & Partial<DatasetSettings>;
  return {
    allowLoopbackFetchForTests: c.allowLoopbackFetchForTests === true,
    fetchCaPem: typeof c.fetchCaPem === 'string' && c.fetchCaPem !== '' ? c.fetchCaPem : undefined,
    fetchTimeoutMs: positive(c.fetchTimeoutMs) ?? DEFAULT_FETCH_TIMEOUT_MS,
    maxUploadBytes: positive(c.maxUploadBytes) ?? DEFAULT_MAX_UPLOAD_BYTES,
    uploadPartBytes: positive(c.uploadPartBytes) ?? DEFAULT_UPLOAD_PART_BYTES,
    maxUploadRowBytes: positive(c.maxUploadRowBytes) ?? DEFAULT_MAX_UPLOAD_ROW_BYTES,
  };
}

function positive(n: unknown): number | undefined {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : undefined;
}
