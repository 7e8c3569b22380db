// The library's push({ siteUrl }) sends a new entry that links to another entry as the CLI's
// push does: the link absolute on the site URL given, the entry created. Both run against the
// emulator over HTTP, each in its own project, with the same entry text; the library through
// src/index.ts, the CLI's command as the CLI runs it (helpers/process/command.ts).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushCommand } from '../../src/cli/commands/push.js';
import { htmlUrls } from '../../src/convert/html-urls.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { EmulatorStore, type EmulatorWorkspace } from '../../src/emulator/store.js';
import { push } from '../../src/index.js';
import { tempDir } from '../helpers/process/cli.js';
import { runCommand } from '../helpers/process/command.js';

const TOKEN = 'links-token';
const SITE_URL = 'https://example.test/changelog/';

let emu: RunningEmulator;
let ws: EmulatorWorkspace;
let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const store = new EmulatorStore();
  ws = store.addWorkspace({ name: 'Links', tokens: [TOKEN] });
  store.insertEntry(ws, { title: 'Custom roles', slug: 'custom-roles', publish_at: '2026-03-01', content: '<p>Roles for everyone.</p>' });
  emu = await startEmulator({ port: 0, store });
  ({ dir, cleanup } = await tempDir());
});
afterAll(async () => {
  await emu?.close();
  await cleanup?.();
});

/** A project at `dir/name` with one new entry, titled `title`, linking to the entry `custom-roles` on the site. */
async function project(name: string, title: string): Promise<string> {
  const root = join(dir, name);
  await mkdir(join(root, 'content/entries'), { recursive: true });
  await writeFile(join(root, 'content/entries/2026-04-01-new.md'), `---\ntitle: ${title}\nis_published: true\npublish_at: 2026-04-01\n---\nIt works with [custom roles](/entries/custom-roles/).\n`);
  return root;
}

/** The links of the entry the service holds under `title`. */
function linksOf(title: string): string[] {
  const entry = ws.entries.find((e) => e.title === title);
  expect(entry, title).toBeTruthy();
  return htmlUrls(entry!.content as string).map((u) => `${u.tag} ${u.url}`);
}

describe('a new entry that links to another entry, with a site URL', () => {
  it('the CLI\'s push sends it, the link absolute on the site', async () => {
    const root = await project('cli', 'From the CLI');
    const run = await runCommand((config, reporter) => pushCommand(config, reporter, { noLease: true }), {
      cwd: root,
      env: { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: TOKEN, CHANGELOG_SITE_URL: SITE_URL },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(linksOf('From the CLI')).toEqual([`a ${SITE_URL}entries/custom-roles/`]);
  });

  it('the library\'s push({ siteUrl }) sends it the same way, nothing left pending', async () => {
    const root = await project('library', 'From the library');
    const result = await push({ root, env: {}, baseUrl: emu.url, token: TOKEN, siteUrl: SITE_URL, noLease: true });
    expect(result.pending).toEqual([]);
    expect(result.pushed.map((p) => p.file)).toEqual(['entries/2026-04-01-new.md']);
    expect(linksOf('From the library')).toEqual([`a ${SITE_URL}entries/custom-roles/`]);
  });
});
