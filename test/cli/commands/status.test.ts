// `status` (a read-only plan of pull and push) and `check` (offline validation for
// pull-request checks), as a user runs them against the emulator over HTTP: each command
// function run in the test's process as the CLI runs it (helpers/process/command.ts). A status stopped
// by a failed read has closed its other reads when it returns (helpers/service/held-service.ts).
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkCommand } from '../../../src/cli/commands/check.js';
import { pullCommand } from '../../../src/cli/commands/pull.js';
import { pushCommand } from '../../../src/cli/commands/push.js';
import { statusCommand } from '../../../src/cli/commands/status.js';
import { tempDir, useTempDir } from '../../helpers/process/cli.js';
import { runCommand, type CommandOptions } from '../../helpers/process/command.js';
import { emulatorFixture, type EmulatorFixture } from '../../helpers/service/emulator.js';
import { changedPaths, snapshot } from '../../helpers/site/snapshot.js';
import { runStoppedByWorkspace, type StoppedJob } from '../../helpers/service/held-service.js';

let fx: EmulatorFixture;
let dir: string;
let cleanup: () => Promise<void>;
let env: Record<string, string>;

beforeAll(async () => {
  fx = await emulatorFixture();
  ({ dir, cleanup } = await tempDir());
  env = { CHANGELOG_BASE_URL: fx.emu.url, CHANGELOG_TOKEN: fx.token };
});
afterAll(async () => {
  await fx.close();
  await cleanup();
});

const entry = (name: string) => join(dir, 'content/entries', name);
/** `changelog-sync [--json] pull|status|push|check [files]` where `options` say. */
const pull = (options: CommandOptions) => runCommand((config, reporter) => pullCommand(config, reporter), options);
const status = (options: CommandOptions) => runCommand((config, reporter) => statusCommand(config, reporter), options);
const push = (options: CommandOptions) => runCommand((config, reporter) => pushCommand(config, reporter), options);
const check = (options: CommandOptions, files: string[] = []) => runCommand((config, reporter) => checkCommand(config, reporter, files), options);

describe('status', () => {
  it('lists remote-only, changed, conflicts, local edits, gone, new local entries and invalid files, and changes nothing but the request ledger', async () => {
    const a = fx.store.insertEntry(fx.ws, { title: 'Alpha', slug: 'alpha', publish_at: '2026-04-01', content: '<p>a</p>' });
    const b = fx.store.insertEntry(fx.ws, { title: 'Beta', slug: 'beta', publish_at: '2026-04-02', content: '<p>b</p>' });
    const c = fx.store.insertEntry(fx.ws, { title: 'Gamma', slug: 'gamma', publish_at: '2026-04-03', content: '<p>c</p>' });
    const d = fx.store.insertEntry(fx.ws, { title: 'Delta', slug: 'delta', publish_at: '2026-04-04', content: '<p>d</p>' });
    expect((await pull({ cwd: dir, env })).code).toBe(0);

    fx.store.insertEntry(fx.ws, { title: 'Epsilon', slug: 'epsilon', publish_at: '2026-04-05', content: '<p>e</p>' }); // remote only
    fx.store.updateEntry(fx.ws, a.identifier, { content: '<p>a, changed</p>' }); // changed remotely
    fx.store.updateEntry(fx.ws, b.identifier, { content: '<p>b, changed</p>' }); // ... and edited locally: conflict
    await writeFile(entry('2026-04-02-beta.md'), (await readFile(entry('2026-04-02-beta.md'), 'utf8')).replace('\nb\n', '\nb, mine\n'));
    await writeFile(entry('2026-04-03-gamma.md'), (await readFile(entry('2026-04-03-gamma.md'), 'utf8')).replace('\nc\n', '\nc, mine\n')); // local edit
    fx.store.deleteEntry(fx.ws, d.identifier); // gone
    await writeFile(entry('2026-04-10-new-api.md'), '---\ntitle: New API\npublish_at: 2026-04-10\nis_published: true\n---\n\nHello.\n');
    await writeFile(entry('2026-04-11-broken.md'), '---\npublish_at: 2026-04-11\n---\n\nNo title.\n');

    const before = await snapshot(dir);
    const r = await status({ cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout;
    expect(out).toContain('Remote only: pull would write (1):\n  + entries/2026-04-05-epsilon.md  "Epsilon"');
    expect(out).toContain('Changed remotely: pull would update (1):\n  ~ entries/2026-04-01-alpha.md');
    expect(out).toContain(`Conflicts: changed remotely and edited locally (1):\n  ! entries/2026-04-02-beta.md (the remote version would go to .changelog/conflicts/${b.identifier}.md)`);
    expect(out).toContain('Local edits that cannot be pushed (the interface has no update) (1):\n  ! entries/2026-04-03-gamma.md');
    expect(out).toContain('Gone remotely (1):\n  - entries/2026-04-04-delta.md (pull --prune removes it)');
    expect(out).toContain('New local entries: push would create (1):\n  + entries/2026-04-10-new-api.md -> slug new-api (published)');
    expect(out).toMatch(/Invalid: not sent until fixed \(1\):\n {2}x entries\/2026-04-11-broken\.md:1: title: is required/);
    expect(changedPaths(before, await snapshot(dir))).toEqual(['.changelog/budget.json']);
    expect(fx.emu.log.filter((l) => l.method !== 'GET')).toEqual([]);

    const json = await status({ cwd: dir, env, json: true });
    const data = JSON.parse(json.stdout) as { command: string; pull: { created: unknown[]; conflicts: unknown[] }; push: { plan: unknown[] } };
    expect(data.command).toBe('status');
    expect(data.pull.created).toHaveLength(1);
    expect(data.pull.conflicts).toHaveLength(1);
    expect(data.push.plan).toHaveLength(1);
    expect(c.identifier).toBeTruthy();
  });

  it('shows what the day\'s request budget defers', async () => {
    await rm(entry('2026-04-11-broken.md'));
    await writeFile(entry('2026-04-12-second.md'), '---\ntitle: Second new\n---\n\nTwo.\n');
    // 1,437 requests already made today: after status's own 3 requests (one workspace read, one
    // listing, the tags: the sync job's dry run), none is left for POSTs.
    await writeFile(join(dir, '.changelog/budget.json'), JSON.stringify({ ledger: [[Math.floor(Date.now() / 60_000), 1437]] }));
    const r = await status({ cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Deferred: the day's request budget is spent; the next run sends them (2):");
    expect(r.stdout).toContain('… entries/2026-04-10-new-api.md');
    expect(r.stdout).toContain('… entries/2026-04-12-second.md');
  });

  it('with nothing to do says so', async () => {
    const { dir: clean, cleanup: done } = await tempDir();
    try {
      const other = await emulatorFixture();
      try {
        const e2 = { CHANGELOG_BASE_URL: other.emu.url, CHANGELOG_TOKEN: other.token };
        other.store.insertEntry(other.ws, { title: 'Only', slug: 'only', publish_at: '2026-01-01', content: '<p>x</p>' });
        await pull({ cwd: clean, env: e2 });
        const r = await status({ cwd: clean, env: e2 });
        expect(r.stdout).toBe('Workspace "Test Workspace": 1 remote entries, 1 mirrored and up to date\nNothing to do: the mirror and the service agree.\n');
      } finally {
        await other.close();
      }
    } finally {
      await done();
    }
  });
});

describe('check', () => {
  // Each test gets a project of its own, with content/entries/ made.
  let d: string;
  useTempDir((made) => (d = made), { each: true });
  const e = (n: string) => join(d, 'content/entries', n);
  beforeEach(async () => {
    await mkdir(join(d, 'content/entries'), { recursive: true });
  });

  it('passes on a valid mirror, with no service configured', async () => {
    await writeFile(e('2026-01-01-a.md'), '---\ntitle: A\npublish_at: 2026-01-01\n---\n\nText.\n');
    const r = await check({ cwd: d });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Checked 1 file: no errors\n');
  });

  it('reports each problem as file:line with the fix, exit 5; GitHub annotations in Actions; --json; file arguments', async () => {
    await writeFile(e('a.md'), '---\ntitle: A\npublish_at: 22/11/2026\nis_published: "yes"\n---\n\nText.\n');
    await writeFile(e('b.md'), '---\ntitle: Same\n---\n\nText.\n');
    await writeFile(e('c.md'), '---\ntitle: Same\n---\n\nText.\n');
    await writeFile(e('d.md'), '---\ntitle: D\nslug: "bad slug!"\n---\n\nText.\n');
    await writeFile(e('e.md'), '---\ntitle: E\nidentifier: 11111111-1111-1111-1111-111111111111\n---\n\nText.\n');
    await writeFile(e('f.md'), '---\ntitle: F\nidentifier: 11111111-1111-1111-1111-111111111111\n---\n\nText.\n');
    await writeFile(e('ok.md'), '---\ntitle: Fine\n---\n\nText.\n');

    const r = await check({ cwd: d });
    expect(r.code).toBe(5);
    // Names such as a.md get a warning each (entry-file-name.ts): not what this is about.
    const lines = r.stdout.trim().split('\n').filter((l) => !l.includes(': warning: the file name '));
    expect(lines).toEqual([
      'content/entries/a.md:3: error: publish_at: must be a date written YYYY-MM-DD (fix: write the date as YYYY-MM-DD, e.g. `publish_at: 2026-11-22`)',
      'content/entries/a.md:4: error: is_published: must be true or false (fix: write `is_published: true` or `is_published: false`)',
      // Push gives the first of two same-title files the title's slug; the other has no date to tell them apart.
      'content/entries/c.md: error: slug: the title gives "same", already used by content/entries/b.md, and the file has no date to tell them apart (fix: set `slug:` in the frontmatter, e.g. `slug: same-2`, or `publish_at:`)',
      'content/entries/d.md:3: error: slug: "bad slug!" is not URL-safe (fix: use letters, digits, hyphens and underscores, e.g. `slug: new-export-api`)',
      'content/entries/e.md:3: error: identifier 11111111-1111-1111-1111-111111111111 is also in content/entries/f.md: two files claim one remote entry (fix: keep one of the files; a copy meant as a new entry must not carry `identifier`)',
      'content/entries/f.md:3: error: identifier 11111111-1111-1111-1111-111111111111 is also in content/entries/e.md: two files claim one remote entry (fix: keep one of the files; a copy meant as a new entry must not carry `identifier`)',
      'Checked 7 files: 6 errors, 4 warnings',
    ]);

    const gh = await check({ cwd: d, env: { GITHUB_ACTIONS: 'true' } }, ['content/entries/a.md']);
    expect(gh.code).toBe(5);
    expect(gh.stdout).toContain('::error file=content/entries/a.md,line=3,title=changelog-sync check%3A publish_at::publish_at: must be a date written YYYY-MM-DD (fix: write the date as YYYY-MM-DD, e.g. `publish_at: 2026-11-22`)');
    expect(gh.stdout).toContain('Checked 1 file: 2 errors');

    const ok = await check({ cwd: d }, ['content/entries/ok.md', 'content/entries/missing.md']);
    expect(ok.code).toBe(5);
    expect(ok.stdout).toContain('content/entries/missing.md: error: no such file (fix: check the path)');

    const json = await check({ cwd: d, json: true });
    const data = JSON.parse(json.stdout) as { command: string; checked: number; errors: number; problems: Array<{ file: string; line?: number; field?: string }> };
    expect(data).toMatchObject({ command: 'check', checked: 7, errors: 6 });
    expect(data.problems[0]).toMatchObject({ file: 'content/entries/a.md', line: 3, field: 'publish_at', severity: 'error' });
  });

  it('passes exactly the new files push sends: same-title files with dates get dated slugs, an undated one is refused by both', async () => {
    await writeFile(e('2026-05-04-weekly-fixes.md'), '---\ntitle: Weekly fixes\npublish_at: 2026-05-04\n---\n\nOne.\n');
    await writeFile(e('2026-05-11-weekly-fixes.md'), '---\ntitle: Weekly fixes\npublish_at: 2026-05-11\n---\n\nTwo.\n');
    await writeFile(e('weekly-fixes-undated.md'), '---\ntitle: Weekly fixes\n---\n\nThree.\n');
    await writeFile(e('2026-05-12-long.md'), `---\ntitle: ${'Long '.repeat(60)}\npublish_at: 2026-05-12\n---\n\nLong.\n`);

    const checked = await check({ cwd: d, json: true });
    expect(checked.code).toBe(5);
    const problems = (JSON.parse(checked.stdout) as { problems: Array<{ file: string; field?: string; message: string }> }).problems.filter((p) => !p.message.startsWith('the file name '));
    expect(problems.map((p) => [p.file, p.field])).toEqual([
      ['content/entries/2026-05-12-long.md', 'slug'],
      ['content/entries/weekly-fixes-undated.md', 'slug'],
    ]);

    const sent = await push({ cwd: d, env, json: true });
    const pushed = JSON.parse(sent.stdout) as { pushed: Array<{ file: string; slug: string; how: string }>; rejected: Array<{ file: string }> };
    expect(pushed.pushed.map((c) => [c.file, c.slug, c.how]).sort()).toEqual([
      ['entries/2026-05-04-weekly-fixes.md', 'weekly-fixes', 'created'],
      ['entries/2026-05-11-weekly-fixes.md', 'weekly-fixes-2026-05-11', 'created'],
    ]);
    expect(pushed.rejected.map((r) => `content/${r.file}`).sort()).toEqual(problems.map((p) => p.file));
  });
});

describe('status stopped by a failed workspace read', () => {
  let d = '';
  useTempDir((made) => (d = made), { each: true });
  let run: StoppedJob<unknown> | undefined;
  afterEach(async () => run?.close());

  it('returns once the listing and the tags in flight are closed: budget.json is not written after (its folder is removed at once)', async () => {
    run = await runStoppedByWorkspace((_, url) => status({ cwd: d, env: { CHANGELOG_BASE_URL: url, CHANGELOG_TOKEN: 't' } }));
    expect(run.outcome).toMatchObject({ status: 'fulfilled', value: { code: 1 } });
    expect(run.ended).toEqual({ sent: ['getWorkspace', 'listEntries', 'listTags'], pending: [], inFlight: 0, booked: 3 });
    expect(await run.siblingsAnswered()).toEqual([false, false]);
    const ledger = JSON.parse(await readFile(join(d, '.changelog/budget.json'), 'utf8')) as { ledger: Array<[number, number]> };
    expect(ledger.ledger.reduce((n, [, c]) => n + c, 0)).toBe(3);
  });
});
