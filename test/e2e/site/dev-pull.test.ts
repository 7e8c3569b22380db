// `changelog-sync dev --pull`: with a token, the mirror is refreshed from the service before
// the preview (the writer's unpushed entry shown beside the pulled ones; a repository with no
// content gets the workspace, never the demo); without one, a refusal that names the token and
// the way to preview without it. The live reload itself: dev-live-reload.test.ts.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSeed } from '../../../src/emulator/seed.js';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { runCli, tempDir } from '../../helpers/process/cli.js';
import { DevProcess } from '../../helpers/process/dev-process.js';

async function get(url: string): Promise<{ status: number; body: string }> {
  const res = await request(url);
  return { status: res.statusCode, body: await res.body.text() };
}

const entry = (title: string, body: string) => `---\ntitle: ${JSON.stringify(title)}\nslug: my-first-entry\npublish_at: 2026-11-01\nis_published: true\n---\n\n${body}\n`;

describe('changelog-sync dev --pull with a token', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let emulator: RunningEmulator;
  let dev: DevProcess;

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    emulator = await startEmulator({ port: 0, store: await loadSeed('demo') });
    await mkdir(join(dir, 'content/entries'), { recursive: true });
    await writeFile(join(dir, 'content/entries/2026-11-01-my-first-entry.md'), entry('My first entry', 'Not pushed yet.'));
  });

  afterAll(async () => {
    await dev?.stop();
    await emulator.close();
    await cleanup();
  });

  it("refreshes the mirror first, then previews it with the writer's own entry", async () => {
    dev = new DevProcess(dir, ['--pull'], { CHANGELOG_BASE_URL: emulator.url, CHANGELOG_TOKEN: 'demo-token' });
    const url = (await dev.output(/Serving the changelog at (\S+)/, 'the dev server'))[1]!;
    expect(dev.stderr).toContain('Pulling, then previewing content/.');
    expect(dev.stderr).not.toContain('DEMO');
    const index = (await get(url)).body;
    expect(index).toContain('Dark mode is here'); // pulled
    expect(index).toContain('My first entry'); // the writer's, not pushed
    expect(await readFile(join(dir, 'content/entries/2026-11-01-my-first-entry.md'), 'utf8')).not.toMatch(/^identifier:/m);
  });

  it('in a repository with no content yet: pulls the workspace, never the demo', async () => {
    const fresh = await tempDir();
    const first = new DevProcess(fresh.dir, ['--pull'], { CHANGELOG_BASE_URL: emulator.url, CHANGELOG_TOKEN: 'demo-token' });
    try {
      const url = (await first.output(/Serving the changelog at (\S+)/, 'the dev server'))[1]!;
      expect(first.stderr).not.toContain('DEMO');
      expect((await get(url)).body).toContain('Dark mode is here');
      expect(existsSync(join(fresh.dir, 'content/_data/workspace.json'))).toBe(true);
      expect(existsSync(join(fresh.dir, '.demo'))).toBe(false);
    } finally {
      await first.stop();
      await fresh.cleanup();
    }
  });
});

describe('changelog-sync dev --pull without a token', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ dir, cleanup } = await tempDir()));
  afterAll(async () => cleanup());

  it('refuses, naming CHANGELOG_TOKEN and the way to preview without one', async () => {
    const r = await runCli(['dev', '--pull'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error E_CONFIG: --pull needs a token: CHANGELOG_TOKEN is not set');
    expect(r.stderr).toContain('  fix: run `npx changelog-sync dev` without --pull to preview content/ as it is (no token needed), or export CHANGELOG_TOKEN (and CHANGELOG_BASE_URL) to refresh it first');
  });
});
