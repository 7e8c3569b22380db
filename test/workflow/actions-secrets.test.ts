// No demo in GitHub Actions: a repository just set up by init runs the hourly
// job before anyone has added the secret and the variable. The commands (run in the test's
// process as the CLI runs them, helpers/process/command.ts) in an Actions-like environment
// (GITHUB_ACTIONS=true, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files) fail, name what is
// missing and where to add it, and write nothing; and the workflow's own first check, run by
// bash as the runner runs it, fails before anything is installed.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/core/config.js';
import type { Reporter } from '../../src/cli/output/reporter.js';
import { pullCommand } from '../../src/cli/commands/pull.js';
import { pushCommand } from '../../src/cli/commands/push.js';
import { statusCommand } from '../../src/cli/commands/status.js';
import { syncCommand } from '../../src/cli/commands/sync.js';
import { useTempDir } from '../helpers/process/cli.js';
import { runCommand } from '../helpers/process/command.js';
import { writeEntry } from '../helpers/sync/entries.js';
import { ageFiles, changedPaths, snapshot } from '../helpers/site/snapshot.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SETTINGS = 'Settings > Secrets and variables > Actions';

describe('in GitHub Actions without the secret or the variable', () => {
  let dir = '';
  let github = '';
  useTempDir((d) => (dir = d), { each: true });
  useTempDir((d) => (github = d), { each: true });

  /** A repository with a local entry and sync state, as a team's checkout has them. */
  async function repository(): Promise<void> {
    await writeEntry(join(dir, 'content'), '2026-01-01-local', '---\ntitle: Local\nis_published: true\npublish_at: 2026-01-01\n---\nA local entry.\n');
    await mkdir(join(dir, '.changelog'), { recursive: true });
    await writeFile(join(dir, '.changelog/state.json'), '{\n  "version": 1,\n  "entries": {}\n}\n');
    await ageFiles(dir);
  }
  const actionsEnv = (extra: Record<string, string> = {}) => ({
    GITHUB_ACTIONS: 'true',
    GITHUB_OUTPUT: join(github, 'output'),
    GITHUB_STEP_SUMMARY: join(github, 'summary.md'),
    CHANGELOG_SITE_URL: 'https://acme.github.io/changelog/',
    ...extra,
  });

  /** The commands as `changelog-sync <command>` runs them. */
  const COMMANDS: Record<string, (config: Config, reporter: Reporter) => Promise<number>> = {
    sync: (config, reporter) => syncCommand(config, reporter),
    'sync --skip-build': (config, reporter) => syncCommand(config, reporter, { skipBuild: true }),
    pull: (config, reporter) => pullCommand(config, reporter),
    push: (config, reporter) => pushCommand(config, reporter),
    status: (config, reporter) => statusCommand(config, reporter),
  };

  it.each(Object.keys(COMMANDS))('`%s` fails naming both and the settings page, in the log and the job summary; nothing is written', async (command) => {
    await repository();
    const before = await snapshot(dir);
    const r = await runCommand(COMMANDS[command]!, { cwd: dir, env: actionsEnv() });
    expect(r.code, r.stderr).toBe(1);
    // The log: the error with its fix, and an annotation (one workflow command line).
    expect(r.stderr).toContain('error E_CONFIG: the repository secret CHANGELOG_TOKEN and the repository variable CHANGELOG_BASE_URL are not set');
    expect(r.stderr).toContain(`fix: add them in the repository's ${SETTINGS}`);
    const annotations = r.stdout.split('\n').filter((l) => l.startsWith('::error'));
    expect(annotations).toHaveLength(1);
    expect(annotations[0]).toMatch(/^::error title=changelog-sync is not set up::.*CHANGELOG_TOKEN.*CHANGELOG_BASE_URL.*Settings > Secrets and variables > Actions/);
    // The job summary, where the run's page shows it.
    const summary = await readFile(join(github, 'summary.md'), 'utf8');
    expect(summary).toContain('### changelog-sync is not set up: nothing was synced, built or deployed');
    expect(summary).toContain(`**${SETTINGS}**`);
    expect(summary).toContain('- the repository secret `CHANGELOG_TOKEN`');
    expect(summary).toContain('- the repository variable `CHANGELOG_BASE_URL`');
    // No demo, nothing written: no .demo/, no content/, .changelog/ or _site/ change, no step output.
    expect(r.stderr).not.toContain('DEMO');
    expect(changedPaths(before, await snapshot(dir))).toEqual([]);
    await expect(readFile(join(github, 'output'), 'utf8')).rejects.toThrow();
  });

  it('names only what is missing: the secret, with the service root in changelog.config.json', async () => {
    await repository();
    await writeFile(join(dir, 'changelog.config.json'), JSON.stringify({ baseUrl: 'https://changelog.acme.test' }));
    const before = await snapshot(dir);
    const r = await runCommand(COMMANDS['sync --skip-build']!, { cwd: dir, env: actionsEnv() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error E_CONFIG: the repository secret CHANGELOG_TOKEN is not set');
    expect(r.stderr).not.toContain('CHANGELOG_BASE_URL');
    expect(await readFile(join(github, 'summary.md'), 'utf8')).not.toContain('CHANGELOG_BASE_URL');
    expect(changedPaths(before, await snapshot(dir))).toEqual([]);
  });

  it('names only what is missing: the variable, with the token set (and never prints the token)', async () => {
    await repository();
    const r = await runCommand(COMMANDS.pull!, { cwd: dir, env: actionsEnv({ CHANGELOG_TOKEN: 'secret-token-1234' }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error E_CONFIG: the repository variable CHANGELOG_BASE_URL is not set');
    expect(r.stderr).not.toContain('CHANGELOG_TOKEN');
    // Only in the mask command, which tells the runner to hide it.
    expect(`${r.stdout}${r.stderr}`.split('\n').filter((l) => l.includes('secret-token-1234'))).toEqual(['::add-mask::secret-token-1234']);
  });

  it('`sync --demo` still runs the demo when asked for, in Actions too (the refusal is of a silent fallback)', async () => {
    const r = await runCommand((config, reporter) => syncCommand(config, reporter, { demo: true, dryRun: true }), { cwd: dir, env: actionsEnv() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('running the DEMO');
  });
});

describe("the scheduled workflow's first check", () => {
  type Step = { name?: string; run?: string; uses?: string };
  const wf = parseYaml(readFileSync(join(ROOT, '.github/workflows/sync.yml'), 'utf8')) as { jobs: Record<string, { steps: Step[]; env?: Record<string, string> }> };
  const steps = wf.jobs.sync!.steps;
  const check = steps.findIndex((s) => s.name === 'Check the secret and the variable');
  let dir = '';
  useTempDir((d) => (dir = d), { each: true });

  /** Runs the step's script as the runner does (bash -e), with the job's env as the secret and the variable give it. */
  function runCheck(env: Record<string, string>): { code: number | null; out: string; summary: string } {
    const summary = join(dir, 'summary.md');
    rmSync(summary, { force: true });
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', steps[check]!.run!], {
      cwd: dir,
      env: { PATH: process.env.PATH, GITHUB_STEP_SUMMARY: summary, CHANGELOG_TOKEN: '', CHANGELOG_BASE_URL: '', ...env },
      encoding: 'utf8',
    });
    let written = '';
    try {
      written = readFileSync(summary, 'utf8');
    } catch {
      // no summary written
    }
    return { code: r.status, out: `${r.stdout}\n${r.stderr}`, summary: written };
  }

  it('comes right after the checkout (and the count of quiet days), before setup-node, npm ci and the sync; the job gives it the secret and the variable', () => {
    expect(steps.slice(0, check).map((s) => s.uses ?? s.name)).toEqual([expect.stringMatching(/^actions\/checkout@/), 'Days since the last commit']);
    expect(steps.findIndex((s) => s.uses?.startsWith('actions/setup-node@'))).toBeGreaterThan(check);
    expect(steps.findIndex((s) => s.run?.includes('changelog-sync sync'))).toBeGreaterThan(check);
    expect(wf.jobs.sync!.env).toMatchObject({ CHANGELOG_TOKEN: '${{ secrets.CHANGELOG_TOKEN }}', CHANGELOG_BASE_URL: '${{ vars.CHANGELOG_BASE_URL }}' });
  });

  it('fails without either, naming both and the settings page in an annotation and the job summary', () => {
    const r = runCheck({});
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^::error title=changelog-sync is not set up::changelog-sync is not set up, missing: the repository secret CHANGELOG_TOKEN and the repository variable CHANGELOG_BASE_URL\. Add it in Settings > Secrets and variables > Actions/m);
    expect(r.summary).toContain('CHANGELOG_TOKEN');
    expect(r.summary).toContain(SETTINGS);
  });

  it('names the one missing; passes with both, or with the token and baseUrl in changelog.config.json', async () => {
    expect(runCheck({ CHANGELOG_BASE_URL: 'https://changelog.acme.test' }).out).not.toContain('CHANGELOG_BASE_URL');
    expect(runCheck({ CHANGELOG_TOKEN: 't' }).out).toContain('missing: the repository variable CHANGELOG_BASE_URL.');
    expect(runCheck({ CHANGELOG_TOKEN: 't', CHANGELOG_BASE_URL: 'https://changelog.acme.test' })).toMatchObject({ code: 0, summary: '' });
    await writeFile(join(dir, 'changelog.config.json'), '{ "baseUrl": "https://changelog.acme.test" }\n');
    expect(runCheck({ CHANGELOG_TOKEN: 't' })).toMatchObject({ code: 0, summary: '' });
  });
});
