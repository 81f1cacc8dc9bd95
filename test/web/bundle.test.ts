// The preview bundle: the page runs the service's own modules with no stand-in swapped in by path, so
// the bundle must build with no Node built-in in it (host/web/bundle.ts fails the build otherwise).
import { describe, expect, it } from 'vitest';
import { buildPreviewBundle } from '../../host/web/bundle.ts';

describe('the preview bundle', () => {
  it('builds for the browser with no Node built-in left in it', async () => {
    const js = await buildPreviewBundle();
    expect(js.length).toBeGreaterThan(10_000);
    expect(js).not.toMatch(/["']node:[a-z_]+["']/);
    expect(js).not.toMatch(/\brequire\(/);
    expect(js).not.toMatch(/\bBuffer\./);
  });

  it('carries no signing code (the page signs nothing; only the service holds keys)', async () => {
    const js = await buildPreviewBundle();
    expect(js).not.toMatch(/EdDSA|importJWK|createHmac|verdict\+json/);
  });
});
