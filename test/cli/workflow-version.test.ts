// One version decides: changelog-sync's reusable workflows pass their major version in
// CHANGELOG_SYNC_WORKFLOW_VERSION, and the CLI of the team's lock file refuses to run under
// another major, saying which to update, in the log, an annotation and the job summary, and
// doing nothing. The real CLI, one process per case (the workflows' jobs running it through
// the tests' workflow runner: test/e2e/workflow/team-workflows.test.ts).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireWorkflowVersion } from '../../src/cli/workflow-version.js';
import { Reporter } from '../../src/cli/output/reporter.js';
import type { ChangelogSyncError } from '../../src/core/errors.js';
import { runCli, useTempDir } from '../helpers/process/cli.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const MAJOR = Number(VERSION.split('.')[0]);

describe('the workflow version and the CLI version', () => {
  let dir = '';
  // A project (check refuses a folder that is not one).
  useTempDir((d) => {
    dir = d;
    mkdirSync(join(d, 'content/entries'), { recursive: true });
  }, { each: true });
  const actions = (version: string) => ({ CHANGELOG_SYNC_WORKFLOW_VERSION: version, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: join(dir, 'summary.md') });

  it('the same major (as the workflow gives it, or v-prefixed, or a full version): the command runs', async () => {
    for (const given of [String(MAJOR), `v${MAJOR}`, `${MAJOR}.9.9`]) {
      const r = await runCli(['check'], { cwd: dir, env: actions(given) });
      expect(r.code, `${given}: ${r.stderr}`).toBe(0);
    }
    expect(existsSync(join(dir, 'summary.md'))).toBe(false);
  });

  it('a newer workflow than the CLI: update the CLI (npm), in an annotation and the job summary; nothing runs', async () => {
    const r = await runCli(['sync', '--dry-run'], { cwd: dir, env: actions(String(MAJOR + 1)) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error E_CONFIG: changelog-sync's workflow is version ${MAJOR + 1} and the CLI of package-lock.json is ${VERSION} (version ${MAJOR}): they must be of one major version. Nothing was done.`);
    expect(r.stderr).toContain(`fix: update the CLI: \`npm install changelog-sync@^${MAJOR + 1}\``);
    const annotations = r.stdout.split('\n').filter((l) => l.startsWith('::error'));
    expect(annotations).toHaveLength(1);
    expect(annotations[0]).toMatch(/^::error title=changelog-sync%3A the workflow and the CLI are of different versions::.*update the CLI/);
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain('**Fix**: update the CLI');
    // Nothing ran: no demo, nothing written but the summary.
    expect(r.stderr).not.toContain('DEMO');
    expect(existsSync(join(dir, 'content/_data'))).toBe(false);
  });

  it('an older workflow than the CLI: update the workflow (its uses: lines); a value that is no version is refused', () => {
    // This package is 0.x: no workflow is older than it, so a CLI of 2.0.0 is given.
    let out = '';
    const reporter = new Reporter({ out: { write: (t: string) => ((out += t), true) } as unknown as NodeJS.WritableStream, env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: join(dir, 'summary.md') } });
    const older = (() => {
      try {
        requireWorkflowVersion(reporter, '2.0.0', { CHANGELOG_SYNC_WORKFLOW_VERSION: '1' });
      } catch (err) {
        return err as ChangelogSyncError;
      }
      return undefined;
    })();
    expect(older?.code).toBe('E_CONFIG');
    expect(older?.hint).toMatch(/^update the workflow: the `uses:` lines of \.github\/workflows\/changelog\.yml and changelog-check\.yml to a v2 release/);
    expect(out).toMatch(/^::error title=.*::changelog-sync's workflow is version 1 and the CLI of package-lock\.json is 2\.0\.0/m);
    expect(() => requireWorkflowVersion(reporter, '2.0.0', { CHANGELOG_SYNC_WORKFLOW_VERSION: 'latest' })).toThrow('CHANGELOG_SYNC_WORKFLOW_VERSION "latest" is not a version');
  });

  it('outside the workflows (the variable unset) nothing is compared', async () => {
    const r = await runCli(['check'], { cwd: dir, env: { CHANGELOG_SYNC_WORKFLOW_VERSION: undefined } });
    expect(r.code, r.stderr).toBe(0);
  });
});
