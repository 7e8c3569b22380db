// A YAML alias bomb ("billion laughs") in a writer's own frontmatter field:
// refused at once by check, push and pull, naming the file and line, while the
// job's other files are still processed. The commands (check, push, pull) run in the test's
// process as the CLI runs them (helpers/process/command.ts), against the emulator over HTTP: the
// parser's refusal, tested first, is what keeps a bomb from hanging them.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChangelogSyncError } from '../../src/core/errors.js';
import { parseEntryFile } from '../../src/entry/entry-file.js';
import { MAX_ALIAS_EXPANSION } from '../../src/entry/frontmatter.js';
import { checkCommand } from '../../src/cli/commands/check.js';
import { pullCommand } from '../../src/cli/commands/pull.js';
import { pushCommand } from '../../src/cli/commands/push.js';
import { runCommand } from '../helpers/process/command.js';
import { useTempDir } from '../helpers/process/cli.js';
import { useEmulatorFixture } from '../helpers/service/emulator.js';

/** Nine levels of nine aliases: 9^9 (387 million) strings once expanded, in 500 bytes. */
const BOMB = [
  'lol_a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]',
  ...'bcdefghi'.split('').map((c, i) => {
    const prev = 'abcdefgh'[i]!;
    return `lol_${c}: &${c} [${Array(9).fill(`*${prev}`).join(', ')}]`;
  }),
].join('\n');

/** The first alias of {@link BOMB} is on its second line. */
const FIRST_ALIAS_OFFSET = 1;

describe('alias expansion limit (parser)', () => {
  it('refuses a bomb with E_FILE naming the file and the line of the first alias', () => {
    const text = `---\ntitle: Bomb\npublish_at: 2026-01-01\n${BOMB}\n---\n\nBody.\n`;
    let error: unknown;
    try {
      parseEntryFile('entries/2026-01-01-bomb.md', text);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ChangelogSyncError);
    const e = error as ChangelogSyncError;
    expect(e.code).toBe('E_FILE');
    expect(e.file).toBe('entries/2026-01-01-bomb.md');
    expect(e.line).toBe(4 + FIRST_ALIAS_OFFSET); // ---, title, publish_at, lol_a, then lol_b
    expect(e.message).toContain('entries/2026-01-01-bomb.md:5: YAML aliases expand the frontmatter');
    expect(e.hint).toContain('*alias');
  });

  it('keeps aliases that expand little, and refuses one that refers to itself', () => {
    const ok = parseEntryFile('a.md', '---\ntitle: A\ndefaults: &d {team: api, area: [x, y]}\nweb: *d\ncli: *d\n---\n\nBody.\n');
    expect(ok.extra.web).toEqual({ team: 'api', area: ['x', 'y'] });
    expect(() => parseEntryFile('b.md', '---\ntitle: B\nloop: &l [1, *l]\n---\n\nBody.\n')).toThrow(/b\.md:3: YAML aliases expand/);
    // A long string aliased many times counts by its characters.
    const long = 'x'.repeat(MAX_ALIAS_EXPANSION / 10);
    const many = `---\ntitle: C\ns: &s "${long}"\nt: [${Array(30).fill('*s').join(', ')}]\n---\n\nBody.\n`;
    expect(() => parseEntryFile('c.md', many)).toThrow(/c\.md:4: YAML aliases expand/);
    // A "*" inside a quoted value or a comment is no alias: the line is the real alias's.
    const quoted = `---\ntitle: "*not an alias*" # *nor this\n${BOMB}\n---\n\nBody.\n`;
    expect(() => parseEntryFile('d.md', quoted)).toThrow(/d\.md:4: YAML aliases expand/);
  });
});

describe('alias bomb through the commands', () => {
  let dir: string;
  useTempDir((d) => (dir = d));
  const emulator = useEmulatorFixture();

  const entries = () => join(dir, 'content/entries');

  it('check and push refuse the file, name file and line, and push the other files', async () => {

    const { fx, env } = emulator;
    await mkdir(entries(), { recursive: true });
    await writeFile(join(entries(), '2026-01-01-bomb.md'), `---\ntitle: Bomb\npublish_at: 2026-01-01\n${BOMB}\n---\n\nBoom.\n`);
    await writeFile(join(entries(), '2026-01-02-fine.md'), '---\ntitle: Fine\npublish_at: 2026-01-02\n---\n\nFine.\n');

    const check = await runCommand((config, reporter) => checkCommand(config, reporter), { cwd: dir, env });
    expect(check.code, check.stderr).toBe(5);
    expect(check.stdout + check.stderr).toContain('2026-01-01-bomb.md:5: error: YAML aliases expand the frontmatter');
    expect(check.stdout + check.stderr).toContain('write the values out');

    const push = await runCommand((config, reporter) => pushCommand(config, reporter), { cwd: dir, env });
    expect(push.code, push.stderr).toBe(5);
    expect(push.stdout).toContain('+ entries/2026-01-02-fine.md');
    // Each problem once on stderr, worded as check words it; the summary names the file.
    expect(push.stderr).toContain('error: content/entries/2026-01-01-bomb.md:5: YAML aliases expand the frontmatter');
    expect(push.stdout).toContain('x entries/2026-01-01-bomb.md: not sent (1 problem, listed above)');
    expect(fx.store.listEntries(fx.ws).map((e) => e.title)).toEqual(['Fine']);
  });

  it('pull, when the remote entry of a file with a bomb changed, reports that file and updates the others', async () => {

    const { fx, env } = emulator;
    // The bomb moves into a pulled file (one with an identifier), as a writer's own field.
    const bomb = join(entries(), '2026-01-01-bomb.md');
    await rm(bomb);
    const other = fx.store.insertEntry(fx.ws, { title: 'Other', slug: 'other', publish_at: '2026-01-03', content: '<p>Other.</p>' });
    const first = await runCommand((config, reporter) => pullCommand(config, reporter), { cwd: dir, env });
    expect(first.code, first.stderr).toBe(0);
    const fine = join(entries(), '2026-01-02-fine.md');
    const text = await readFile(fine, 'utf8');
    const closing = text.indexOf('\n---\n', 4);
    await writeFile(fine, `${text.slice(0, closing)}\n${BOMB}${text.slice(closing)}`);
    const line = text.slice(0, closing).split('\n').length + 1 + FIRST_ALIAS_OFFSET;

    const fineEntry = fx.store.listEntries(fx.ws).find((e) => e.title === 'Fine')!;
    fx.store.updateEntry(fx.ws, fineEntry.identifier, { content: '<p>Fine, changed remotely.</p>' });
    fx.store.updateEntry(fx.ws, other.identifier, { content: '<p>Other, changed remotely.</p>' });

    const pull = await runCommand((config, reporter) => pullCommand(config, reporter), { cwd: dir, env });
    const out = pull.stdout + pull.stderr;
    expect(out).toContain(`2026-01-02-fine.md:${line}: YAML aliases expand the frontmatter`);
    // The file counts as edited (it no longer reads): a conflict, exit 3, the remote version set aside.
    expect(pull.code, out).toBe(3);
    expect(out).toContain(`! conflict: entries/2026-01-02-fine.md`);
    expect(await readFile(join(dir, `.changelog/conflicts/${fineEntry.identifier}.md`), 'utf8')).toContain('Fine, changed remotely.');
    // The other entry is still mirrored; the file with the bomb is left as the writer wrote it.
    expect(await readFile(join(entries(), '2026-01-03-other.md'), 'utf8')).toContain('Other, changed remotely.');
    expect(await readFile(fine, 'utf8')).toContain('lol_i: &i');
  });
});
