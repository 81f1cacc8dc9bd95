// The `oq` command (host/cli/client/main.ts): bin/oq.mjs runs this file, compiled (dist/) or as source.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { processIo } from './client/io.ts';
import { runCli } from './client/main.ts';

export async function runOq(argv: string[] = process.argv.slice(2)): Promise<void> {
  process.exitCode = await runCli(argv, processIo());
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await runOq();
