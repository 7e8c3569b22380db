// `check` as the gate before something permanent: every rule through the check
// command, and `push --dry-run` / `push` against the emulator over HTTP reporting the same
// problems in the same words, each once, with no path written twice. The commands run in the
// test's process as the CLI runs them (helpers/process/command.ts).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { checkCommand } from '../../../src/cli/commands/check.js';
import { newCommand } from '../../../src/cli/commands/new.js';
import { pushCommand } from '../../../src/cli/commands/push.js';
import { runCommand } from '../../helpers/process/command.js';
import { useEntriesProject } from '../../helpers/service/project.js';

const w = useEntriesProject();
beforeEach(async () => {
  await mkdir(join(w.dir, 'content/_data'), { recursive: true });
  await writeFile(join(w.dir, 'content/_data/tags.json'), JSON.stringify([{ name: 'Improvement', slug: 'improvement' }, { name: 'API', slug: 'api' }]));
});

/** check's lines (stdout, without the summary) and push's problem lines (stderr, without `error: `). */
async function both(): Promise<{ check: string[]; push: string[]; checkCode: number | null; pushCode: number | null; pushOut: string; pushErr: string }> {
  const c = await runCommand((config, reporter) => checkCommand(config, reporter), { cwd: w.dir });
  const p = await runCommand((config, reporter) => pushCommand(config, reporter, { dryRun: true }), { cwd: w.dir, env: w.env });
  return {
    check: c.stdout.trim().split('\n').slice(0, -1),
    push: p.stderr.split('\n').filter((l) => l.startsWith('error: ') || l.startsWith('warning: ')),
    checkCode: c.code,
    pushCode: p.code,
    pushOut: p.stdout,
    pushErr: p.stderr,
  };
}

/** `path:line: error: message` (check) -> `error: path:line: message` (push): the same words. */
const asPush = (line: string) => line.replace(/^(\S+?): (error|warning): /, '$2: $1: ');

describe('check refuses what must never be published, and push refuses the same, in the same words', () => {
  it("text left from new's template, from the one constant new writes", async () => {
    const made = await runCommand((config, reporter) => newCommand(config, reporter, 'My first entry', { date: '2026-03-01' }), { cwd: w.dir });
    expect(made.code, made.stderr).toBe(0);
    const r = await both();
    const file = 'content/entries/2026-03-01-my-first-entry.md';
    expect(r.check).toEqual([
      `${file}:9: error: "Write the entry here, in Markdown." is left from the template of \`changelog-sync new\` (fix: replace the template lines with the entry's text)`,
      `${file}:11: error: "- What changed, for whom" is left from the template of \`changelog-sync new\` (fix: replace the template lines with the entry's text)`,
      `${file}:12: error: "- How to use it" is left from the template of \`changelog-sync new\` (fix: replace the template lines with the entry's text)`,
    ]);
    expect(r.checkCode).toBe(5);
    expect(r.push).toEqual(r.check.map(asPush));
    expect(r.pushCode).toBe(5);
    expect(r.pushOut).toContain(`  x entries/2026-03-01-my-first-entry.md: not sent (3 problems, listed above)`);

    // One line of the template left among real text is still refused.
    await writeFile(w.entry('2026-03-01-my-first-entry.md'), '---\ntitle: My first entry\npublish_at: 2026-03-01\n---\n\nExports are faster.\n\n- How to use it\n');
    expect((await both()).check).toEqual([
      `${file}:8: error: "- How to use it" is left from the template of \`changelog-sync new\` (fix: replace the template lines with the entry's text)`,
    ]);
  });

  it('an empty body', async () => {
    await writeFile(w.entry('2026-03-02-empty.md'), '---\ntitle: Empty\npublish_at: 2026-03-02\n---\n\n  \n');
    const r = await both();
    expect(r.check).toEqual(['content/entries/2026-03-02-empty.md:5: error: the body is empty: the entry would be published without text (fix: write the entry below the frontmatter)']);
    expect(r.push).toEqual(r.check.map(asPush));
  });

  it("a near-miss tag, named with its fix: against tags.json, case-insensitively, and against the tags other entries use", async () => {
    await writeFile(w.entry('2026-03-03-a.md'), '---\ntitle: A\npublish_at: 2026-03-03\ntags: [Improvment, api]\n---\n\nText.\n');
    await writeFile(w.entry('2026-03-04-b.md'), '---\ntitle: B\npublish_at: 2026-03-04\ntags: [Security]\n---\n\nText.\n');
    await writeFile(w.entry('2026-03-05-c.md'), '---\ntitle: C\npublish_at: 2026-03-05\ntags: [Security]\n---\n\nText.\n');
    await writeFile(w.entry('2026-03-06-d.md'), '---\ntitle: D\npublish_at: 2026-03-06\ntags: [SECURTY, Billing]\n---\n\nText.\n');
    // A mirrored entry: its body is the service's (empty is not its writer's doing), its tags are local.
    await writeFile(w.entry('2026-01-01-pulled.md'), '---\ntitle: Pulled\npublish_at: 2026-01-01\nidentifier: 0b6f1c9e-1111-4c7e-8a3f-2d6e1b0c9a57\ntags: [Improvment]\n---\n');
    const r = await both();
    expect(r.check).toEqual([
      'content/entries/2026-01-01-pulled.md:5: error: tags: "Improvment" is not a known tag, and tags.json has "Improvement": it would get a tag page of its own (fix: write `Improvement`)',
      'content/entries/2026-03-03-a.md:4: error: tags: "Improvment" is not a known tag, and tags.json has "Improvement": it would get a tag page of its own (fix: write `Improvement`)',
      'content/entries/2026-03-03-a.md:4: warning: tags: "api" is written "API" in tags.json (fix: write `API`)',
      'content/entries/2026-03-06-d.md:4: warning: tags: "SECURTY" is not a known tag, and other entries use "Security": it would get a tag page of its own (fix: write `Security`)',
    ]);
    // A warning does not stop a file: push sends b, c and d (against other entries' tags a
    // near miss is a warning: either may be the new tag), and refuses a.
    // Push sends nothing for the mirrored file, so it refuses nothing for it.
    expect(r.push).toEqual([r.check[1]].map((l) => asPush(l!)));
    expect(r.pushOut).toContain('push 3 new entries');
  });

  it('a near miss is no misspelling when the digits differ (versions, years) or two known tags are as near', async () => {
    await writeFile(join(w.dir, 'content/_data/tags.json'), JSON.stringify([{ name: '2025', slug: '2025' }, { name: 'Cards', slug: 'cards' }, { name: 'Carts', slug: 'carts' }]));
    await writeFile(w.entry('2026-03-10-a.md'), '---\ntitle: A\npublish_at: 2026-03-10\ntags: [v1.3, Meta]\n---\n\nText.\n');
    await writeFile(w.entry('2026-03-11-b.md'), '---\ntitle: B\npublish_at: 2026-03-11\ntags: [v1.3, Meta]\n---\n\nText.\n');
    // v1.2 and 2026: other digits; Carps: as near to Cards as to Carts; Beta: only other entries use Meta.
    await writeFile(w.entry('2026-03-12-c.md'), '---\ntitle: C\npublish_at: 2026-03-12\ntags: [v1.2, "2026", Carps, Beta]\n---\n\nText.\n');
    const r = await both();
    expect(r.check).toEqual([
      'content/entries/2026-03-12-c.md:4: warning: tags: "Beta" is not a known tag, and other entries use "Meta": it would get a tag page of its own (fix: write `Meta`)',
    ]);
    expect(r.checkCode).toBe(0);
    expect(r.push.filter((l) => l.startsWith('error: '))).toEqual([]);
    expect(r.pushCode).toBe(0);
    expect(r.pushOut).toContain('push 3 new entries');
  });

  it('a date that does not exist says so; every problem of a file once; no doubled path', async () => {
    await writeFile(w.entry('2026-02-30-x.md'), '---\ntitle: ""\npublish_at: 2026-02-30\nis_published: 3\n---\n\nText.\n');
    await writeFile(w.entry('2026-03-07-y.md'), '---\ntitle: "Y\nbad: [\n---\n\nText.\n');
    const r = await both();
    expect(r.check).toEqual([
      'content/entries/2026-02-30-x.md:2: error: title: is required: a non-empty string (fix: add a line `title: "Your title"` to the frontmatter)',
      'content/entries/2026-02-30-x.md:3: error: publish_at: 2026-02-30 is not a date that exists (fix: write a real day, e.g. `publish_at: 2026-02-01`)',
      'content/entries/2026-02-30-x.md:4: error: is_published: must be true or false (fix: write `is_published: true` or `is_published: false`)',
      'content/entries/2026-03-07-y.md:4: error: invalid YAML frontmatter at column 1: missing closing "quote (fix: quote values that contain ":" or "#", e.g. title: "Fix: exports")',
    ]);
    expect(r.push).toEqual(r.check.map(asPush));
    // Each problem once across stdout and stderr, and no path named twice on a line.
    for (const line of r.check) expect(`${r.pushOut}\n${r.pushErr}`.split(line.replace(/^\S+ error: /, '')).length - 1).toBe(1);
    for (const line of [...r.push, ...r.pushOut.split('\n')]) expect(line).not.toMatch(/entries\/[^ ]+\.md.*entries\/[^ ]+\.md/);
  });
});

describe('push states that what it sends is permanent', () => {
  it('one line before sending, on stderr: never in --json stdout, never on --dry-run', async () => {
    await writeFile(w.entry('2026-03-08-real.md'), '---\ntitle: Real entry\npublish_at: 2026-03-08\n---\n\nExports are faster.\n');
    // The temp directory is an adopting repository: check is named as it runs there.
    const line = 'Note: the service cannot edit or delete an entry once it is created; what is sent now stays as sent (run `npx changelog-sync check` first).';
    // A dry run sends nothing: no notice.
    const dry = await runCommand((config, reporter) => pushCommand(config, reporter, { dryRun: true }), { cwd: w.dir, env: w.env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain('Pushing new entries to ');
    expect(dry.stderr).not.toContain('cannot edit');
    const r = await runCommand((config, reporter) => pushCommand(config, reporter), { cwd: w.dir, env: w.env, json: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n').filter((l) => l === line)).toHaveLength(1);
    expect(r.stdout).not.toContain('cannot edit');
    expect((JSON.parse(r.stdout) as { pushed: unknown[] }).pushed).toHaveLength(1);
    // Stated before the request that creates the entry: right after the start line.
    const lines = r.stderr.split('\n');
    expect(lines.indexOf(line)).toBe(lines.findIndex((l) => l.startsWith('Pushing new entries to ')) + 1);
  });
});
