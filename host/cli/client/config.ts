// Where the command line finds the service and its key, first found wins: the flags `--url` and `--key`,
// the environment (OQ_URL, OQ_API_KEY), then a JSON config file `{"url": ..., "api_key": ...}` at
// OQ_CONFIG or ~/.config/oq/config.json (docs/guides/command-line.md#configuration).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const DEFAULT_URL = 'http://127.0.0.1:8787';

export interface Connection {
  url: string;
  apiKey?: string;
  /** Where each came from, for `oq config`. */
  from: { url: string; apiKey: string };
}

export class UsageError extends Error {}

export function configPath(env: NodeJS.ProcessEnv): string {
  if (env.OQ_CONFIG) return env.OQ_CONFIG;
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'oq', 'config.json');
}

export function resolveConnection(flags: { url?: string; key?: string }, env: NodeJS.ProcessEnv): Connection {
  const file = configPath(env);
  let saved: { url?: unknown; api_key?: unknown } = {};
  if (fs.existsSync(file)) {
    try {
      saved = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (err) {
      throw new UsageError(`the config file ${file} is not JSON (${(err as Error).message}); fix or delete it`);
    }
  }
  const pick = (flag: string | undefined, envName: string, fileValue: unknown): [string | undefined, string] => {
    if (flag) return [flag, 'flag'];
    if (env[envName]) return [env[envName], envName];
    if (typeof fileValue === 'string' && fileValue) return [fileValue, file];
    return [undefined, 'none'];
  };
  const [url, urlFrom] = pick(flags.url, 'OQ_URL', saved.url);
  const [apiKey, keyFrom] = pick(flags.key, 'OQ_API_KEY', saved.api_key);
  const finalUrl = url ?? DEFAULT_URL;
  if (!/^https?:\/\/[^/]+/.test(finalUrl)) {
    throw new UsageError(`the service URL ${finalUrl} (from ${urlFrom}) is not an http(s) URL, e.g. ${DEFAULT_URL}`);
  }
  return { url: finalUrl, apiKey, from: { url: url ? urlFrom : 'default', apiKey: keyFrom } };
}
