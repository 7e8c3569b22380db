// `site_changed`: the real CLI against the real emulator, in GitHub Actions mode, with
// GITHUB_OUTPUT pointed at a file. A build records its inputs; the next sync compares.
import { cp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, type CliResult } from '../../helpers/process/cli.js';
import { emulatorFixture, type EmulatorFixture } from '../../helpers/service/emulator.js';
import { writeEntry } from '../../helpers/sync/entries.js';
import { textMatching } from '../../helpers/matchers.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CLOCK_SHIFT = pathToFileURL(fileURLToPath(new URL('../../helpers/process/clock-shift.mjs', import.meta.url))).href;
const SITE_URL = 'https://acme.github.io/changelog/';
const DAY_MS = 86_400_000;
const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);

describe('sync writes site_changed to $GITHUB_OUTPUT', () => {
  let fx: EmulatorFixture;
  let dir: string;
  let cleanup: () => Promise<void>;
  let outputFile: string;
  const env = (extra: Record<string, string> = {}) => ({
    CHANGELOG_BASE_URL: fx.emu.url,
    CHANGELOG_TOKEN: fx.token,
    CHANGELOG_SITE_URL: SITE_URL,
    GITHUB_ACTIONS: 'true',
    GITHUB_OUTPUT: outputFile,
    CHANGELOG_RATE_WINDOW_MS: '100',
    ...extra,
  });

  /** Runs `sync --skip-build` and returns the site_changed it wrote (and the run). */
  async function sync(options: { extra?: Record<string, string>; cli?: string } = {}): Promise<{ changed: string; run: CliResult }> {
    await writeFile(outputFile, '');
    const run = await runCli(['sync', '--skip-build'], { cwd: dir, env: env(options.extra), cli: options.cli });
    expect(run.code, run.stderr).toBe(0);
    const lines = (await readFile(outputFile, 'utf8')).split('\n').filter((l) => l.startsWith('site_changed='));
    expect(lines).toHaveLength(1);
    return { changed: lines[0]!.slice('site_changed='.length), run };
  }
  async function build(cli?: string): Promise<void> {
    const run = await runCli(['build'], { cwd: dir, env: env(), cli });
    expect(run.code, run.stderr).toBe(0);
  }
  /** The case changed the site: sync says true; after a build, a sync says false. */
  async function expectChangedThenSettled(cli?: string): Promise<string> {
    const first = await sync({ cli });
    expect(first.changed, first.run.stderr).toBe('true');
    await build(cli);
    expect((await sync({ cli })).changed).toBe('false');
    return first.run.stderr;
  }

  beforeAll(async () => {
    // About a hundred requests in a minute or two: at the service's real 60 a minute, the
    // CLI's pacing (or the emulator's 429s, once the clock is shifted and the ledger cannot
    // tell) would make the runs wait on the machine's speed. The limit is not under test here.
    fx = await emulatorFixture({ limits: { perMinute: 600, windowMs: 1000, perDay: 1_000_000 } });
    fx.store.insertEntry(fx.ws, { title: 'First', publish_at: '2026-01-05', content: '<p>one</p>' });
    ({ dir, cleanup } = await tempDir());
    outputFile = join(dir, 'github-output');
    // The first run: nothing built yet, so the site changed; its build settles it.
    await expectChangedThenSettled();
  }, 120_000);
  afterAll(async () => {
    await fx?.close();
    await cleanup?.();
  });

  it('a run with nothing new says false, and says why', async () => {
    const { changed, run } = await sync();
    expect(changed).toBe('false');
    expect(run.stderr).toContain('Site unchanged: nothing the site is built from changed since the last build');
    const record = JSON.parse(await readFile(join(dir, '.changelog/site-inputs.json'), 'utf8')) as unknown;
    expect(record).toMatchObject({ version: 1, hash: textMatching(/^[0-9a-f]{64}$/), nextDue: null });
  });

  it('a pulled entry: true', async () => {
    fx.store.insertEntry(fx.ws, { title: 'From the web editor', publish_at: '2026-02-01', content: '<p>two</p>' });
    await expectChangedThenSettled();
  }, 180_000);

  it('a pulled change of the workspace settings, and a new tag: true', async () => {
    fx.ws.info.name = 'Renamed Workspace';
    await expectChangedThenSettled();
    fx.ws.tags.push({ name: 'Security', slug: 'security', bg_color: '#d00', text_color: '#fff' });
    await expectChangedThenSettled();
  }, 180_000);

  it('a pushed entry: true', async () => {
    await writeEntry(join(dir, 'content'), '2026-03-01-pushed', '---\ntitle: Pushed from git\nis_published: true\npublish_at: 2026-03-01\n---\nBody.\n');
    const stderr = await expectChangedThenSettled();
    expect(stderr).toContain('Pushed 1 new entry');
    expect(fx.ws.entries.map((e) => e.title)).toContain('Pushed from git');
  }, 180_000);

  it('an edited template under site/: true', async () => {
    await mkdir(join(dir, 'site/_includes'), { recursive: true });
    const footer = await readFile(join(ROOT, 'site/_includes/footer.njk'), 'utf8');
    await writeFile(join(dir, 'site/_includes/footer.njk'), `${footer}\n<!-- our footer -->\n`);
    await expectChangedThenSettled();
    await writeFile(join(dir, 'site/_includes/footer.njk'), `${footer}\n<!-- our footer, edited -->\n`);
    await expectChangedThenSettled();
  }, 180_000);

  it('a changed configuration (file or site URL): true', async () => {
    await writeFile(join(dir, 'changelog.config.json'), '{ "concurrency": 2 }\n');
    await expectChangedThenSettled();
    const moved = await sync({ extra: { CHANGELOG_SITE_URL: 'https://changelog.acme.test/' } });
    expect(moved.changed).toBe('true');
  }, 180_000);

  it("a new version of the tool: true, naming both versions", async () => {
    // The same build of the CLI installed as 0.0.0-next: dist, templates and package.json.
    const pkg = join(dir, '..', `${dir.split('/').pop()}-pkg`);
    await mkdir(pkg, { recursive: true });
    try {
      await cp(join(ROOT, 'dist'), join(pkg, 'dist'), { recursive: true });
      await cp(join(ROOT, 'site'), join(pkg, 'site'), { recursive: true });
      const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
      await writeFile(join(pkg, 'package.json'), JSON.stringify({ ...manifest, version: '0.0.0-next' }));
      await symlink(join(ROOT, 'node_modules'), join(pkg, 'node_modules'));
      const cli = join(pkg, 'dist/cli.js');
      const stderr = await expectChangedThenSettled(cli);
      expect(stderr).toContain(`changelog-sync ${manifest.version} -> 0.0.0-next`);
      // And back to the installed version: changed again.
      expect((await sync()).changed).toBe('true');
      await build();
    } finally {
      await rm(pkg, { recursive: true, force: true });
    }
  }, 180_000);

  it('a scheduled entry: true when pulled, false until its day, true on its day', async () => {
    // Three days ahead, with the clock moved 1 and 3 days: the outcome is the same should
    // the test run across midnight (UTC).
    const dueDay = day(3);
    fx.store.insertEntry(fx.ws, { title: 'Coming soon', publish_at: dueDay, status: 'scheduled', content: '<p>later</p>' });
    await expectChangedThenSettled();
    const record = JSON.parse(await readFile(join(dir, '.changelog/site-inputs.json'), 'utf8')) as { nextDue: string | null };
    expect(record.nextDue).toBe(dueDay);
    // The same run as if it were a day later: not yet due.
    const clock = (days: number) => ({ NODE_OPTIONS: `--import=${CLOCK_SHIFT}`, TEST_CLOCK_SHIFT_MS: String(days * DAY_MS) });
    expect((await sync({ extra: clock(1) })).changed).toBe('false');
    // On its day (UTC): due, so the hourly job publishes it.
    const due = await sync({ extra: clock(3) });
    expect(due.changed).toBe('true');
    expect(due.run.stderr).toContain(`an entry scheduled for ${dueDay} is due`);
  }, 180_000);

  it('a build that leaves an entry out (exit 5, nothing deployed) records nothing: the next run builds again', async () => {
    const recordFile = join(dir, '.changelog/site-inputs.json');
    const before = await readFile(recordFile, 'utf8');
    const broken = join(dir, 'content/entries/2026-04-01-broken.md');
    await writeFile(broken, '---\ntitle: [unclosed\n---\nBody.\n');
    const run = await runCli(['build'], { cwd: dir, env: env() });
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toContain('2026-04-01-broken.md');
    expect(await readFile(recordFile, 'utf8')).toBe(before);
    await rm(broken);
  }, 180_000);
});

describe('a build in GitHub Actions without a site URL', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    await writeEntry(join(dir, 'content'), '2026-01-01-a', '---\ntitle: A\nis_published: true\n---\nA.\n');
  });
  afterAll(() => cleanup());

  const MESSAGE =
    'error E_CONFIG: CHANGELOG_SITE_URL is not set: a site built in GitHub Actions would point its feeds, canonical links and sitemap at http://localhost:8080/';

  it('build fails naming CHANGELOG_SITE_URL and the fix, and writes nothing', async () => {
    const r = await runCli(['build'], { cwd: dir, env: { GITHUB_ACTIONS: 'true' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(MESSAGE);
    expect(r.stderr).toContain('steps.pages.outputs.base_url');
    expect(r.stderr).toContain('actions/configure-pages');
    await expect(readFile(join(dir, '_site/index.html'))).rejects.toThrow();
  });

  it('sync that would build fails the same way before it pulls or pushes anything', async () => {
    const r = await runCli(['sync'], { cwd: dir, env: { GITHUB_ACTIONS: 'true', CHANGELOG_BASE_URL: 'http://127.0.0.1:9/', CHANGELOG_TOKEN: 't' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(MESSAGE);
  });

  it('with the site URL from the environment or the config file it builds', async () => {
    const r = await runCli(['build'], { cwd: dir, env: { GITHUB_ACTIONS: 'true', CHANGELOG_SITE_URL: SITE_URL } });
    expect(r.code, r.stderr).toBe(0);
    await writeFile(join(dir, 'changelog.config.json'), JSON.stringify({ siteUrl: SITE_URL }));
    const fromFile = await runCli(['build'], { cwd: dir, env: { GITHUB_ACTIONS: 'true' } });
    expect(fromFile.code, fromFile.stderr).toBe(0);
    await rm(join(dir, 'changelog.config.json'));
  });

  it('locally (not in GitHub Actions) localhost stays the preview default', async () => {
    const r = await runCli(['build'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(await readFile(join(dir, '_site/index.html'), 'utf8')).toContain('http://localhost:8080/');
  });
});
