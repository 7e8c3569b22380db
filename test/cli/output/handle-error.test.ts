// The top-level handler: errors to messages, JSON and exit codes (cli/output/handle-error.ts).
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChangelogSyncError, type ErrorCode } from '../../../src/core/errors.js';
import { EXIT } from '../../../src/cli/output/exit-codes.js';
import { handleError } from '../../../src/cli/output/handle-error.js';
import { captureReporter } from '../../helpers/process/reporter.js';

const CODES: ErrorCode[] = ['E_AUTH', 'E_RATE_LIMITED', 'E_NOT_FOUND', 'E_VALIDATION', 'E_SERVICE', 'E_NETWORK', 'E_CONFIG', 'E_LOCKED', 'E_FILE', 'E_BUILD', 'E_GIT', 'E_OUTSIDE_PROJECT', 'E_USAGE', 'E_PRUNE_REFUSED', 'E_STATE_FORMAT'];
const word = fc.stringMatching(/^[A-Za-z][A-Za-z .,'-]{0,30}$/);

describe('handleError', () => {
  it('maps E_USAGE to exit 2 and every other code to 1, printing the code, the message and the fix', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CODES), word, fc.option(word, { nil: undefined }), (code, message, hint) => {
        const { reporter, out, err } = captureReporter();
        const exit = handleError(new ChangelogSyncError(code, message, { hint }), reporter);
        expect(exit).toBe(code === 'E_USAGE' ? EXIT.USAGE : EXIT.ERROR);
        const lines = err().split('\n');
        expect(lines[0]).toBe(`error ${code}: ${message}`);
        expect(lines.includes(`  fix: ${hint}`)).toBe(hint !== undefined);
        expect(out()).toBe('');
      }),
    );
  });

  it('puts the file and line first, once', () => {
    const { reporter, err } = captureReporter();
    handleError(new ChangelogSyncError('E_FILE', 'bad date', { file: 'content/entries/a.md', line: 3 }), reporter);
    handleError(new ChangelogSyncError('E_FILE', 'content/entries/b.md: bad date', { file: 'content/entries/b.md' }), reporter);
    const [a, b] = err().split('\n');
    expect(a).toBe('error E_FILE: content/entries/a.md:3: bad date');
    expect(b).toBe('error E_FILE: content/entries/b.md: bad date');
  });

  it('shows the absolute paths under the working directory given relative to it (file, message, fix, annotation); others as they are', () => {
    const cwd = join(tmpdir(), 'project');
    const { reporter, out, err } = captureReporter({ cwd, env: { GITHUB_ACTIONS: 'true' } });
    const file = join(cwd, '.changelog/state.json');
    const elsewhere = join(tmpdir(), 'project-other/x.md');
    handleError(new ChangelogSyncError('E_FILE', `${file}: saving the sync state failed (beside ${elsewhere})`, { file, hint: `free space under ${cwd}/.changelog` }), reporter);
    expect(err()).toContain('error E_FILE: .changelog/state.json: saving the sync state failed (beside ' + elsewhere + ')\n  fix: free space under .changelog\n');
    expect(out()).toContain('::error file=.changelog/state.json,title=');
  });

  it('with --json, prints one document with the error and its fields on stdout', () => {
    const { reporter, out } = captureReporter({ json: true });
    const error = new ChangelogSyncError('E_VALIDATION', 'title is empty', { status: 422, file: 'a.md', line: 2, field: 'title', hint: 'give it a title' });
    expect(handleError(error, reporter)).toBe(EXIT.ERROR);
    expect(JSON.parse(out())).toEqual({ error: { code: 'E_VALIDATION', message: 'title is empty', status: 422, file: 'a.md', line: 2, field: 'title', hint: 'give it a title' } });
  });

  it('reports anything else thrown as E_INTERNAL, exit 1, asking for --debug and a report', () => {
    for (const thrown of [new TypeError('x is undefined'), 'a string', { message: 'an object' }, undefined]) {
      const { reporter, out, err } = captureReporter({ json: true });
      expect(handleError(thrown, reporter)).toBe(EXIT.ERROR);
      const message = thrown instanceof Error ? thrown.message : typeof thrown === 'object' ? thrown.message : String(thrown);
      expect(err()).toContain(`error: ${message}\n`);
      expect(err()).toContain('--debug');
      expect(JSON.parse(out())).toEqual({ error: { code: 'E_INTERNAL', message } });
    }
  });

  it('tells a file system error no step named by its path and code, with the fix, as E_FILE (not an unexpected error)', () => {
    const enospc = Object.assign(new Error("ENOSPC: no space left on device, open '/p/.changelog/state.json'"), { code: 'ENOSPC', syscall: 'open', path: '/p/.changelog/state.json' });
    const { reporter, out, err } = captureReporter({ json: true });
    expect(handleError(enospc, reporter)).toBe(EXIT.ERROR);
    expect(err()).toContain("error E_FILE: /p/.changelog/state.json: a file operation (open) failed: ENOSPC: no space left on device, open '/p/.changelog/state.json'\n");
    expect(err()).toContain('  fix: the disk is full: free some space and run the same command again');
    expect(err()).not.toContain('unexpected error');
    expect(JSON.parse(out())).toMatchObject({ error: { code: 'E_FILE', file: '/p/.changelog/state.json' } });
  });

  it('lists what the command had done before the error (human: its report, then the error; --json: one document)', () => {
    const error = new ChangelogSyncError('E_AUTH', 'POST /api/entry: 401');
    error.done = { lines: ['Pushed 1 new entry', '  + a.md -> id-1'], data: { command: 'push', created: [{ file: 'a.md', identifier: 'id-1', written_back: true }] } };
    const human = captureReporter();
    handleError(error, human.reporter);
    expect(human.out()).toBe('Pushed 1 new entry\n  + a.md -> id-1\n');
    expect(human.err()).toContain('error E_AUTH: POST /api/entry: 401');
    const json = captureReporter({ json: true });
    handleError(error, json.reporter);
    const doc = JSON.parse(json.out()) as { command: string; created: unknown[]; error: { code: string } };
    expect(doc).toMatchObject({ command: 'push', created: [{ file: 'a.md', identifier: 'id-1', written_back: true }], error: { code: 'E_AUTH' } });
  });

  it('prints stacks, and the cause, only with --debug', () => {
    const cause = new Error('socket hang up');
    const error = new ChangelogSyncError('E_NETWORK', 'no answer', { cause });
    const quiet = captureReporter();
    handleError(error, quiet.reporter);
    expect(quiet.err()).not.toContain('socket hang up');
    const debug = captureReporter();
    handleError(error, debug.reporter, true);
    expect(debug.err()).toContain(`caused by: ${cause.stack!.split('\n')[0]}`);
    expect(debug.err()).toContain(error.stack!.split('\n')[1]!.trim());
    const plain = captureReporter();
    handleError({ not: 'an error' }, plain.reporter, true);
    handleError(new ChangelogSyncError('E_SERVICE', 'odd', { cause: { status: 500 } }), plain.reporter, true);
    expect(plain.err()).toContain('caused by: {"status":500}');
  });

  it('never prints the token', () => {
    const token = 'tok-123456789';
    const { reporter, out, err } = captureReporter({ json: true, secrets: [token], env: { GITHUB_ACTIONS: 'true' } });
    handleError(new ChangelogSyncError('E_AUTH', `token ${token} refused`, { hint: `not ${token}` }), reporter, true);
    handleError(new Error(`boom ${token}`), reporter, true);
    // The runner's own mask command is the one line that names it.
    const printed = (out() + err()).split('\n').filter((l) => l !== `::add-mask::${token}`);
    expect(printed.join('\n')).not.toContain(token);
    expect(printed.join('\n')).toContain('***');
  });
});
