// Debian's Chromium for the browser suites, driven by playwright-core: never a browser
// download of playwright's own. The flags keep a headless root run off the network.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Where `.ci/run` installs it (Debian's `chromium` package). */
const CHROMIUM = '/usr/bin/chromium';

/** A persistent Chromium context in a fresh profile, and how to close it and remove the profile. */
export async function launchChromium(options: { colorScheme?: 'light' | 'dark' } = {}): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), 'changelog-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    viewport: { width: 1280, height: 900 },
    ...options,
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
