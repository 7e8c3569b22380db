// The working directory is passed in, never read from this process below the entries: the
// library called with `cwd` (and no `root`) from a process that runs elsewhere pulls, pushes
// and builds under that directory; the CLI's commands, given the project as their working
// directory (as src/cli.ts gives them its own), resolve arguments and name files relative
// to it. The service is the demo emulator over HTTP; this process's working directory is
// the repository's, never the project's.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { build, pull, push } from '../../src/index.js';
import { buildCommand } from '../../src/cli/commands/build.js';
import { checkCommand } from '../../src/cli/commands/check.js';
import { pullCommand } from '../../src/cli/commands/pull.js';
import { pushCommand } from '../../src/cli/commands/push.js';
import { runCommand } from '../helpers/process/command.js';
import { useTempDir } from '../helpers/process/cli.js';
import { useDemoEmulator } from '../helpers/service/emulator.js';

// A pull converts the demo's entries and a build runs Eleventy and Pagefind, on two shared cores.
vi.setConfig({ testTimeout: 120_000 });

const TOKEN = 'demo-token';
const demo = useDemoEmulator();
let cliDir: string;
useTempDir((d) => (cliDir = d));

beforeAll(() => {
  // The premise: the projects are not where this process runs.
  expect(process.cwd()).not.toBe(demo.dir);
  expect(process.cwd()).not.toBe(cliDir);
});

/** A new entry file in a project, for push. */
async function newEntry(dir: string, slug: string): Promise<string> {
  const file = join(dir, `content/entries/2026-11-20-${slug}.md`);
  await writeFile(file, `---\ntitle: "${slug}"\nslug: ${slug}\npublish_at: 2026-11-20\nis_published: true\n---\n\nWritten in another directory.\n`);
  return file;
}

describe('the library with a cwd other than the process\'s', () => {
  const project = () => ({ cwd: demo.dir, env: {}, baseUrl: demo.emu.url, token: TOKEN });

  it('pull writes the mirror under the cwd given', async () => {
    const result = await pull(project());
    expect(result.created.length).toBeGreaterThan(0);
    for (const item of result.created) expect(existsSync(join(demo.dir, 'content', item.file)), item.file).toBe(true);
    expect(existsSync(join(demo.dir, '.changelog/state.json'))).toBe(true);
  });

  it('push sends a new file of the cwd given and writes its identifier back into it', async () => {
    const file = await newEntry(demo.dir, 'from-elsewhere');
    const result = await push({ ...project(), noLease: true });
    expect(result.pushed.map((p) => p.file)).toEqual(['entries/2026-11-20-from-elsewhere.md']);
    expect(await readFile(file, 'utf8')).toContain(`identifier: ${result.pushed[0]!.identifier}`);
  });

  it('build writes the site under the cwd given', async () => {
    const result = await build(project());
    expect(result.outputDir).toBe(join(demo.dir, '_site'));
    expect(existsSync(join(demo.dir, '_site/entries/from-elsewhere/index.html'))).toBe(true);
  });
});

describe('the CLI\'s commands with a cwd other than the process\'s', () => {
  const env = () => ({ CHANGELOG_BASE_URL: demo.emu.url, CHANGELOG_TOKEN: TOKEN });

  it('pull, push and build work in the cwd given and name its files relative to it', async () => {
    const pulled = await runCommand((config, reporter) => pullCommand(config, reporter), { cwd: cliDir, env: env() });
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(existsSync(join(cliDir, 'content/_data/workspace.json'))).toBe(true);

    await newEntry(cliDir, 'cli-elsewhere');
    const pushed = await runCommand((config, reporter) => pushCommand(config, reporter, { noLease: true }), { cwd: cliDir, env: env(), json: true });
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(await readFile(join(cliDir, 'content/entries/2026-11-20-cli-elsewhere.md'), 'utf8')).toMatch(/^identifier: /m);

    const built = await runCommand((config, reporter) => buildCommand(config, reporter), { cwd: cliDir, env: {} });
    expect(built.code, built.stderr).toBe(0);
    // The output folder as the user, in the project, names it.
    expect(built.stdout).toMatch(/ into _site in /);
    expect(existsSync(join(cliDir, '_site/entries/cli-elsewhere/index.html'))).toBe(true);
  });

  it('check reads a file named relative to the cwd given, and names it so', async () => {
    await writeFile(join(cliDir, 'content/entries/2026-11-21-broken.md'), '---\ntitle: ""\npublish_at: 2026-11-21\n---\n\nNo title.\n');
    const r = await runCommand((config, reporter) => checkCommand(config, reporter, ['content/entries/2026-11-21-broken.md']), { cwd: cliDir });
    expect(r.code).toBe(5);
    expect(r.stdout).toContain('content/entries/2026-11-21-broken.md:2: error: title');
    expect(r.stdout).toMatch(/Checked 1 file: 1 error/);
  });
});
