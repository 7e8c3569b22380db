// Every failure in GitHub Actions is an annotation and a job summary with the fix, as a
// missing secret is (test/workflow/actions-secrets.test.ts): the real CLI, in an Actions-like
// environment (GITHUB_ACTIONS=true, a GITHUB_STEP_SUMMARY file), against the emulator over
// HTTP. A wrong token first of all; then every other error code the one handler reports.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ChangelogSyncError, type ErrorCode } from '../../src/core/errors.js';
import { handleError } from '../../src/cli/output/handle-error.js';
import { runCli, useTempDir } from '../helpers/process/cli.js';
import { captureReporter } from '../helpers/process/reporter.js';
import { useEmulatorFixture } from '../helpers/service/emulator.js';
import { CLOSED_PORT } from '../helpers/service/closed-port.js';

vi.setConfig({ testTimeout: 60_000 });

const SETTINGS = 'Settings > Secrets and variables > Actions';

/** The `::error` lines of stdout (workflow commands). */
const annotations = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('::error'));

describe('in GitHub Actions, a failure is an annotation and a job summary with the fix', () => {
  const emulator = useEmulatorFixture();
  let dir = '';
  let github = '';
  useTempDir((d) => (dir = d), { each: true });
  useTempDir((d) => (github = d), { each: true });
  const actions = (extra: Record<string, string>) => ({ GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: join(github, 'summary.md'), ...extra });
  const summary = () => readFile(join(github, 'summary.md'), 'utf8');

  it.each(['pull', 'push', 'status', 'sync'])('a wrong token (401) in `%s`: replace the repository secret CHANGELOG_TOKEN, in the settings page', async (command) => {
    // A new local entry, for push to send.
    await mkdir(join(dir, 'content/entries'), { recursive: true });
    await writeFile(join(dir, 'content/entries/2026-01-01-local.md'), '---\ntitle: Local\n---\nA local entry.\n');
    const r = await runCli([command], { cwd: dir, env: actions({ CHANGELOG_BASE_URL: emulator.fx.emu.url, CHANGELOG_TOKEN: 'wrong-token-5678', CHANGELOG_SITE_URL: 'https://acme.test/' }) });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('error E_AUTH:');
    const lines = annotations(r.stdout);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^::error title=changelog-sync failed%3A E_AUTH::GET http.*\/api\/workspace: 401 Unauthorized.*\. Fix: the repository secret CHANGELOG_TOKEN is not accepted \(401 Unauthorized\): replace it in the repository's Settings > Secrets and variables > Actions/);
    const md = await summary();
    expect(md).toContain('### changelog-sync failed: E_AUTH');
    expect(md).toContain('**Fix:** the repository secret CHANGELOG\\_TOKEN is not accepted');
    expect(md).toContain(SETTINGS.replace(/>/g, '\\>'));
    // The token is masked, never printed.
    expect(`${r.stdout}${r.stderr}${md}`.split('\n').filter((l) => l.includes('wrong-token-5678'))).toEqual(['::add-mask::wrong-token-5678']);
  });

  it('a service that does not answer (E_NETWORK): the fix names CHANGELOG_BASE_URL and where it is set in Actions', async () => {
    const port = CLOSED_PORT;
    const r = await runCli(['status'], { cwd: dir, env: actions({ CHANGELOG_BASE_URL: `http://127.0.0.1:${port}`, CHANGELOG_TOKEN: 'tok-1234' }) });
    expect(r.code).toBe(1);
    const lines = annotations(r.stdout);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^::error title=changelog-sync failed%3A E_NETWORK::.*ECONNREFUSED.*Fix: check CHANGELOG_BASE_URL .* \(in GitHub Actions: the repository's Settings > Secrets and variables > Actions\)$/);
    expect(await summary()).toContain('### changelog-sync failed: E_NETWORK');
  });

  it('a configuration error (E_CONFIG) names the file in the annotation and the summary', async () => {
    await writeFile(join(dir, 'changelog.config.json'), '{ "contentDir": 5 }\n');
    const r = await runCli(['check'], { cwd: dir, env: actions({}) });
    expect(r.code).toBe(1);
    const lines = annotations(r.stdout);
    expect(lines).toHaveLength(1);
    // On the file and its line, where the pull request shows it.
    expect(lines[0]).toMatch(/^::error file=changelog\.config\.json,line=1,title=changelog-sync failed%3A E_CONFIG::changelog\.config\.json:1: contentDir: .*\. Fix: correct contentDir/);
    expect(await summary()).toContain('### changelog-sync failed: E_CONFIG');
  });

  it('outside Actions, nothing but the log lines', async () => {
    const r = await runCli(['status'], { cwd: dir, env: { CHANGELOG_BASE_URL: emulator.fx.emu.url, CHANGELOG_TOKEN: 'wrong-token-5678' } });
    expect(r.code).toBe(1);
    expect(annotations(r.stdout)).toEqual([]);
    await expect(summary()).rejects.toThrow();
  });
});

describe('every code that reaches the handler', () => {
  // E_AUTH has a fix of its own in Actions (above).
  const CODES: ErrorCode[] = ['E_RATE_LIMITED', 'E_NOT_FOUND', 'E_VALIDATION', 'E_SERVICE', 'E_UNEXPECTED_RESPONSE', 'E_NETWORK', 'E_RESPONSE_TOO_LARGE', 'E_ENTRY_TOO_LARGE', 'E_CONFIG', 'E_WORKSPACE_MISMATCH', 'E_LOCKED', 'E_FILE', 'E_BUILD', 'E_GIT', 'E_OUTSIDE_PROJECT', 'E_USAGE', 'E_PRUNE_REFUSED'];
  let github = '';
  useTempDir((d) => (github = d), { each: true });

  it.each(CODES)('%s: one annotation with its fix, and a summary section', async (code) => {
    const { reporter, out } = captureReporter({ env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: join(github, 's.md') } });
    handleError(new ChangelogSyncError(code, 'it went wrong', { hint: 'do the fix' }), reporter);
    expect(annotations(out())).toEqual([`::error title=changelog-sync failed%3A ${code}::it went wrong. Fix: do the fix`]);
    expect(await readFile(join(github, 's.md'), 'utf8')).toBe(`### changelog-sync failed: ${code}\n\nit went wrong\n\n**Fix:** do the fix\n`);
  });

  it("data in the message stays data: no control character in the annotation, the summary's Markdown escaped", async () => {
    const { reporter, out } = captureReporter({ env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: join(github, 's.md') } });
    handleError(new ChangelogSyncError('E_SERVICE', 'the service said \u001b[31m[x](http://evil.test) # hi\r\n::warning::no'), reporter);
    const [line, ...more] = annotations(out());
    expect(more).toEqual([]);
    expect(line).toBe('::error title=changelog-sync failed%3A E_SERVICE::the service said \\x1b[31m[x](http://evil.test) # hi%0A::warning::no');
    const md = await readFile(join(github, 's.md'), 'utf8');
    expect(md).toContain('the service said  \\[31m\\[x\\]\\(http\\:\\/\\/evil\\.test\\) \\# hi ');
    expect(md).not.toContain('](http');
  });

  it('an unexpected error (E_INTERNAL) too, asking for --debug and a report', async () => {
    const { reporter, out } = captureReporter({ env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: join(github, 's.md') } });
    handleError(new TypeError('x is undefined'), reporter);
    expect(annotations(out())).toEqual(['::error title=changelog-sync failed%3A E_INTERNAL::x is undefined. Fix: run the command again with --debug for the stack, and please report it']);
    expect(await readFile(join(github, 's.md'), 'utf8')).toContain('### changelog-sync failed: E_INTERNAL');
  });
});
