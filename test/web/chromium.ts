// Launches the system Chromium for the browser tests (docs/design/house-rules.md#toolchain): /usr/bin/chromium through
// playwright-core with a fresh profile. A missing Chromium is a failure, never a skip (CI installs it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = path.resolve(import.meta.dirname, '../../test-artifacts');

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM}; the browser tests need it: apt-get update && apt-get install -y chromium`);
  }
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'oq-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
    viewport: { width: 1200, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
