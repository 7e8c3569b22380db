// Workflow commands cannot be injected: under GitHub Actions, a workspace name
// and a file name holding a line break and `::error ...` (or a carriage return, or the
// runner's older `##[...]` syntax) print no line that the runner would read as a command.
// The only command lines are the tool's own annotations, escaped per GitHub's rules. The real
// CLI, one process per command: every line a process prints counts, not only the Reporter's
// (the escaping itself, called directly: test/cli/output/reporter.test.ts).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { EmulatorStore } from '../../../src/emulator/store.js';
import { runCli, tempDir } from '../../helpers/process/cli.js';

vi.setConfig({ testTimeout: 120_000 });

const NAME = 'Acme\n::error::pwned by the name\r::warning::pwned by a CR\n  ::notice::pwned indented ##[error]pwned the old way\u001b[2J';
const FILE = '2026-01-01-bad\n::error file=x.md::pwned by the file name.md';

let emu: RunningEmulator;
let dir: string;
let cleanup: () => Promise<void>;
let env: Record<string, string>;

beforeAll(async () => {
  const store = new EmulatorStore();
  store.addWorkspace({ name: NAME, tokens: ['gha-token'] });
  emu = await startEmulator({ port: 0, store });
  ({ dir, cleanup } = await tempDir());
  await mkdir(join(dir, 'content/entries'), { recursive: true });
  // An entry file with a hostile name, and no title: push and check report it on the file.
  await writeFile(join(dir, 'content/entries', FILE), '---\npublish_at: 2026-01-01\n---\n\nNo title ::error::pwned by the message\n');
  env = { CHANGELOG_BASE_URL: emu.url, CHANGELOG_TOKEN: 'gha-token', CHANGELOG_SITE_URL: 'https://acme.github.io/changelog/', GITHUB_ACTIONS: 'true' };
});
afterAll(async () => {
  await emu.close();
  await cleanup();
});

/** Lines as the runner reads them: split on LF, CR and CRLF, leading whitespace trimmed. */
const runnerLines = (text: string) => text.split(/\r\n|\r|\n/).map((l) => l.trimStart());
/**
 * The tool's own annotation: on an entry file, properties and message escaped, so `::`
 * appears only as the two separators. (Data made to look like one names no such file.)
 */
const ANNOTATION = /^::(error|warning|notice) file=content\/entries\/[^:,\r\n]*(,line=\d+)?(,title=[^:,\r\n]*)?::[^\r\n]*$/;

describe('under GitHub Actions', () => {
  it('no data starts a workflow command in pull, status, push, check, sync (text and --json)', async () => {
    const annotations: string[] = [];
    for (const args of [['pull'], ['status'], ['push'], ['check'], ['sync'], ['pull', '--json'], ['check', '--json'], ['push', '--verbose']]) {
      const r = await runCli(args, { cwd: dir, env });
      const all = `${r.stdout}\n${r.stderr}`;
      expect(all, args.join(' ')).toContain('pwned'); // the data was printed ...
      for (const line of runnerLines(all)) {
        if (line.startsWith('::')) {
          // ... but only the tool's annotations are commands, and the data inside them is escaped.
          if (line === '::add-mask::gha-token') continue; // the tool's own: the token, masked in later lines
          expect(line, `${args.join(' ')}: ${line}`).toMatch(ANNOTATION);
          annotations.push(line);
        }
        expect(line, `${args.join(' ')}: ${line}`).not.toContain('##[');
        expect(line).not.toContain('\u001b');
      }
    }
    // push, check and sync annotate the file, its name escaped (%0A, %3A, %2C and %25 rules).
    const escapedFile = 'content/entries/2026-01-01-bad%0A%3A%3Aerror file=x.md%3A%3Apwned by the file name.md';
    expect(annotations.some((a) => a.startsWith(`::error file=${escapedFile}`)), annotations.join('\n')).toBe(true);
    // The human text shows the data, neutralised: the name's line breaks do not start a command.
    const pulled = await runCli(['pull'], { cwd: dir, env });
    expect(pulled.stdout + pulled.stderr).toContain('%3A:error::pwned by the name');
    expect(pulled.stdout + pulled.stderr).toContain('\\x1b[2J');
  });

  it('outside Actions the text is printed as it is, but for control characters', async () => {
    const r = await runCli(['pull'], { cwd: dir, env: { ...env, GITHUB_ACTIONS: '' } });
    expect(r.stdout + r.stderr).toContain('\n::error::pwned by the name');
    expect(r.stdout + r.stderr).not.toContain('\r');
    expect(r.stdout + r.stderr).not.toContain('\u001b');
  });
});
