// Hostile input, handled: each case against the emulator over
// HTTP and temporary directories, through the library, a command run in the test's process as
// the CLI runs it (helpers/process/command.ts), or the real CLI.
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkEntryFiles } from '../../../src/sync/push/entry-check.js';
import { parseEntryFile } from '../../../src/entry/entry-file.js';
import { pull } from '../../../src/sync/pull/pull.js';
import { buildCommand } from '../../../src/cli/commands/build.js';
import { pullCommand } from '../../../src/cli/commands/pull.js';
import { runCommand } from '../../helpers/process/command.js';
import { runCli } from '../../helpers/process/cli.js';
import type { EmulatorFixture } from '../../helpers/service/emulator.js';
import { useMirror } from '../../helpers/sync/mirror.js';
import { changedPaths, snapshot } from '../../helpers/site/snapshot.js';
import { elementsOf, scriptVectors } from '../../helpers/browser/html.js';

let fx: EmulatorFixture;
let dir: string;
let contentDir: string;
let stateDir: string;

useMirror((mirror) => ({ fx, dir, contentDir, stateDir } = mirror));

const run = () => pull({ client: fx.client(), contentDir, stateDir });
const entryNames = async () => (await readdir(join(contentDir, 'entries'))).sort();
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;


/** Not a warning about a file's name (`a.md` is not named YYYY-MM-DD-<slug>.md): those are tested in test/cli/commands/check-names-dates.test.ts. */
const notNameWarning = (p: { message: string }) => !p.message.startsWith('the file name ');
describe('hostile remote slugs', () => {
  it('files stay inside content/entries/ with portable names, and the slug itself is kept exactly', async () => {
    const slugs = ['../../etc/x', 'a/b', 'CON', 'x'.repeat(300), '..', '.hidden', 'a\\b', 'nul', 'COM1', 'x:y*z?"<>|', ' spaced out ', 'emoji-🚀', 'עברית', '', 'Ünïcödé'];
    for (const [i, slug] of slugs.entries()) fx.store.insertEntry(fx.ws, { title: `Entry ${i}`, slug, publish_at: '2026-01-05', content: `<p>${i}</p>` });
    fx.store.insertEntry(fx.ws, { title: 'Bad date', slug: 'bad-date', publish_at: '../../2026', content: '<p>d</p>' });
    fx.store.insertEntry(fx.ws, { title: 'Impossible date', slug: 'impossible-date', publish_at: '2026-13-45T00:00:00.000000Z', content: '<p>d</p>' });
    const r = await run();
    expect(r.created).toHaveLength(slugs.length + 2);

    // Nothing outside the mirror: only entries/, _data/ and the state.
    const all = [...(await snapshot(dir)).keys()];
    for (const p of all) expect(p, p).toMatch(/^(content\/entries\/[^/]+\.md|content\/_data\/(workspace|tags)\.json|\.changelog\/state\.json)$/);
    const names = await entryNames();
    expect(names).toHaveLength(slugs.length + 2);
    for (const name of names) {
      expect(name).toMatch(/^(\d{4}-\d{2}-\d{2}|undated)-[a-z0-9-]+\.md$/);
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(100);
      expect(name).not.toMatch(WINDOWS_RESERVED);
    }
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(names.length); // distinct on case-insensitive file systems too
    expect(names).toContain('undated-bad-date.md');
    expect(names).toContain('undated-impossible-date.md');

    // The frontmatter keeps the service's slug as it is.
    const pulledSlugs: string[] = [];
    for (const name of names) pulledSlugs.push(parseEntryFile(name, await readFile(join(contentDir, 'entries', name))).data.slug ?? '');
    expect(pulledSlugs.sort()).toEqual([...slugs, 'bad-date', 'impossible-date'].sort());

    expect((await run()).writes).toEqual([]);
  });

  it('two remote entries with the same slug and date get two files, stable across pulls and removals', async () => {
    const a = fx.store.insertEntry(fx.ws, { title: 'First', slug: 'release', publish_at: '2026-01-05', content: '<p>a</p>' });
    const b = fx.store.insertEntry(fx.ws, { title: 'Second', slug: 'release', publish_at: '2026-01-05', content: '<p>b</p>' });
    const r = await run();
    const fileOf = (id: string) => r.created.find((c) => c.identifier === id)!.file;
    expect(new Set([fileOf(a.identifier), fileOf(b.identifier)]).size).toBe(2);
    expect([fileOf(a.identifier), fileOf(b.identifier)].sort()).toEqual(['entries/2026-01-05-release.md', expect.stringMatching(/^entries\/2026-01-05-release-[0-9a-f]{8}\.md$/)].sort());
    expect((await run()).writes).toEqual([]);
    // The one with the plain name is deleted remotely: the other keeps its file.
    const plain = fileOf(a.identifier) === 'entries/2026-01-05-release.md' ? a : b;
    const other = plain === a ? b : a;
    fx.store.deleteEntry(fx.ws, plain.identifier);
    fx.store.updateEntry(fx.ws, other.identifier, { content: '<p>changed</p>' });
    const again = await run();
    expect(again.updated.map((u) => u.file)).toEqual([fileOf(other.identifier)]);
    expect(again.renamed).toEqual([]);
  });

  it('a hostile identifier never chooses a path and never touches a prototype', async () => {
    const ids = ['../../../evil', '__proto__', 'a/b', 'constructor'];
    for (const id of ids) fx.store.insertEntry(fx.ws, { identifier: id, title: `Id ${id}`, slug: `id-${ids.indexOf(id)}`, publish_at: '2026-01-06', content: '<p>x</p>' });
    await run();
    const state = JSON.parse(await readFile(join(stateDir, 'state.json'), 'utf8')) as { entries: Record<string, unknown> };
    expect(Object.keys(state.entries).sort()).toEqual([...ids].sort());
    expect(({} as Record<string, unknown>).file).toBeUndefined();
    // Edited on both sides: the conflict copies are inside .changelog/conflicts/.
    for (const [i, id] of ids.entries()) {
      const file = join(contentDir, 'entries', `2026-01-06-id-${i}.md`);
      await writeFile(file, (await readFile(file, 'utf8')).replace('x', 'edited'));
      fx.store.updateEntry(fx.ws, id, { content: '<p>remote</p>' });
    }
    const r = await run();
    expect(r.conflicts).toHaveLength(ids.length);
    for (const c of r.conflicts) expect(c.conflictFile).toMatch(/^conflicts\/[A-Za-z0-9_-]+\.md$/);
    for (const p of (await snapshot(dir)).keys()) expect(p.startsWith('content/') || p.startsWith('.changelog/'), p).toBe(true);
    expect(existsSync(join(dir, '..', 'evil.md'))).toBe(false);
  });
});

describe('titles that YAML, quotes and scripts make hard', () => {
  it('round-trip exactly through the pulled frontmatter', async () => {
    const titles = [
      'Fix: exports # 2', 'key: value', '- dash', '[a, b]', '{a: b}', '&anchor', '*alias', '!tag', '| pipe', '> folded', '%directive', '@here', '`tick`',
      'yes', 'no', 'null', '~', 'true', '0x1F', '1e3', '2026-01-01', '"double" quotes', "'single' quotes", 'it\'s "both"', 'back\\slash',
      'line one\nline two', 'crlf\r\nline', 'tab\there', '  leading and trailing  ', 'Dark mode 🌙 🚀', 'עדכון גרסה 2.0', 'تحديث جديد', 'mixed \u202Eevil\u202C override',
      'zero\u200Bwidth', '---', '...', 'a: b: c', '#', "'", '"',
    ];
    for (const [i, title] of titles.entries()) fx.store.insertEntry(fx.ws, { title, slug: `t-${i}`, publish_at: '2026-01-07', content: '<p>b</p>' });
    await run();
    for (const [i, title] of titles.entries()) {
      const f = parseEntryFile('t', await readFile(join(contentDir, 'entries', `2026-01-07-t-${i}.md`)));
      expect(f.data.title, JSON.stringify(title)).toBe(title);
    }
    expect((await run()).writes).toEqual([]);
  });
});

describe('hostile local files', () => {
  async function writeEntry(name: string, content: string | Buffer): Promise<void> {
    await mkdir(join(contentDir, 'entries'), { recursive: true });
    await writeFile(join(contentDir, 'entries', name), content);
  }

  it('---js (and other languages) frontmatter is never executed: reported with file and line, others proceed', async () => {
    const g = globalThis as Record<string, unknown>;
    g.__pwned = false;
    await writeEntry('evil-js.md', '---js\n{ title: (globalThis.__pwned = true, "x") }\n---\nbody\n');
    await writeEntry('evil-js2.md', '--- javascript\nglobalThis.__pwned = true; module.exports = { title: "x" }\n---\nbody\n');
    await writeEntry('evil-coffee.md', '---coffee\ntitle: do -> globalThis.__pwned = true\n---\nbody\n');
    await writeEntry('json.md', '---json\n{"title": "x"}\n---\nbody\n');
    await writeEntry('fine.md', '---\ntitle: Fine\n---\nok\n');
    fx.store.insertEntry(fx.ws, { title: 'Remote', slug: 'remote', publish_at: '2026-01-08', content: '<p>r</p>' });

    const r = await run();
    expect(g.__pwned).toBe(false);
    expect(r.created.map((c) => c.file)).toEqual(['entries/2026-01-08-remote.md']);
    expect(r.problems.map((p) => p.file).sort()).toEqual(['entries/evil-coffee.md', 'entries/evil-js.md', 'entries/evil-js2.md', 'entries/json.md']);

    const check = await checkEntryFiles({ contentDir, stateDir, cwd: dir });
    expect(g.__pwned).toBe(false);
    // Names such as fine.md and nul.md get file-name warnings (entry-file-name.ts): not what this is about.
    const byFile = new Map(check.problems.filter(notNameWarning).map((p) => [p.file, p]));
    for (const [name, lang] of [['evil-js.md', 'js'], ['evil-js2.md', 'javascript'], ['evil-coffee.md', 'coffee'], ['json.md', 'json']]) {
      const p = byFile.get(`content/entries/${name}`)!;
      expect(p, name).toMatchObject({ severity: 'error', line: 1 });
      expect(p.message).toContain(`frontmatter language "${lang}" is not allowed`);
    }
    expect(byFile.has('content/entries/fine.md')).toBe(false);
  });

  it('invalid YAML is reported with file and line; the other files proceed', async () => {
    await writeEntry('bad.md', '---\ntitle: ok\npublish_at: 2026-01-01\ntags: [unclosed\n---\nbody\n');
    await writeEntry('bad2.md', '---\ntitle: Fix: exports: again\n---\n\nText.\n');
    await writeEntry('good.md', '---\ntitle: Good\n---\nok\n');
    fx.store.insertEntry(fx.ws, { title: 'Remote', slug: 'remote', publish_at: '2026-01-08', content: '<p>r</p>' });
    const r = await run();
    expect(r.created).toHaveLength(1);
    expect(r.problems.map((p) => [p.file, p.line])).toEqual([
      ['entries/bad.md', 5],
      ['entries/bad2.md', 2],
    ]);
    const check = await checkEntryFiles({ contentDir, stateDir, cwd: dir });
    expect(check.problems.filter(notNameWarning).map((p) => [p.file, p.line, p.severity])).toEqual([
      ['content/entries/bad.md', 5, 'error'],
      ['content/entries/bad2.md', 2, 'error'],
    ]);
    expect(check.problems[0]!.message).toContain('invalid YAML frontmatter');
    expect(check.checked).toBe(4);
  });

  it('invalid UTF-8 and a NUL byte are reported (NUL with its line); the other files proceed', async () => {
    await writeEntry('latin1.md', Buffer.concat([Buffer.from('---\ntitle: Caf'), Buffer.from([0xe9]), Buffer.from('\n---\nbody\n')]));
    await writeEntry('nul.md', '---\ntitle: ok\n---\n\nline\nbad \u0000 byte\n');
    await writeEntry('good.md', '---\ntitle: Good\n---\nok\n');
    const check = await checkEntryFiles({ contentDir, stateDir, cwd: dir });
    expect(check.problems.filter(notNameWarning).map((p) => [p.file, p.line, p.message])).toEqual([
      ['content/entries/latin1.md', undefined, 'not valid UTF-8'],
      ['content/entries/nul.md', 6, 'contains a NUL byte'],
    ]);
    fx.store.insertEntry(fx.ws, { title: 'Remote', slug: 'remote', publish_at: '2026-01-08', content: '<p>r</p>' });
    const r = await run();
    expect(r.created).toHaveLength(1);
    expect(r.problems.map((p) => p.file).sort()).toEqual(['entries/latin1.md', 'entries/nul.md']);
  });
});

describe('a 5 MB entry', () => {
  it('is pulled whole, and a 5 MB local file is checked', async () => {
    const para = `<p>${'Lorem ipsum dolor sit amet, <strong>consectetur</strong> adipiscing elit. '.repeat(130)}</p>\n`;
    let html = '<h2>Big</h2>\n';
    while (html.length < 5 * 1024 * 1024) html += para;
    html += '<p>THE-END-MARKER</p>';
    fx.store.insertEntry(fx.ws, { title: 'Huge', slug: 'huge', publish_at: '2026-01-09', content: html });
    const r = await run();
    expect(r.created).toHaveLength(1);
    const text = await readFile(join(contentDir, 'entries/2026-01-09-huge.md'), 'utf8');
    expect(text.length).toBeGreaterThan(4 * 1024 * 1024);
    expect(text.trimEnd().endsWith('THE-END-MARKER')).toBe(true);
    expect((await run()).writes).toEqual([]);
    const check = await checkEntryFiles({ contentDir, stateDir, cwd: dir });
    expect(check).toMatchObject({ checked: 1, errors: 0 });
  }, 120_000);
});

describe('remote HTML with script', () => {
  it('is mirrored as it is, and the built site carries no script from it (sanitised at build time)', async () => {
    const hostile = [
      '<p onclick="alert(\'x1\')">Click <a href="javascript:alert(\'x2\')">here</a></p>',
      '<script>alert("x3")</script>',
      '<iframe src="https://evil.example/x4"></iframe>',
      '<img src="x" onerror="alert(\'x5\')">',
      '<svg onload="alert(\'x6\')"><script>alert("x7")</script></svg>',
      '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgneDgnKTwvc2NyaXB0Pg==">x8</a>',
    ].join('\n');
    fx.store.insertEntry(fx.ws, { title: 'Hostile <script>alert("t")</script>', slug: 'hostile', publish_at: '2020-01-10', status: 'published', content: hostile });
    const env = { CHANGELOG_BASE_URL: fx.emu.url, CHANGELOG_TOKEN: fx.token };
    const pulled = await runCommand((config, reporter) => pullCommand(config, reporter), { cwd: dir, env });
    expect(pulled.code, pulled.stderr).toBe(0);
    const mirrored = await readFile(join(contentDir, 'entries/2020-01-10-hostile.md'), 'utf8');
    expect(mirrored).toContain('<script>alert("x3")</script>'); // the mirror is faithful

    // A writer's local file with the same tricks in Markdown.
    await writeFile(
      join(contentDir, 'entries/2020-01-11-local.md'),
      '---\ntitle: Local\npublish_at: 2020-01-11\nis_published: true\n---\n\n[x9](javascript:alert(\'x9\'))\n\n<div onmouseover="alert(\'x10\')">hover</div>\n\n<iframe srcdoc="<script>alert(\'x11\')</script>"></iframe>\n',
    );
    const built = await runCommand((config, reporter) => buildCommand(config, reporter), { cwd: dir, env });
    expect(built.code, built.stderr).toBe(0);
    const pages = (await readdir(join(dir, '_site'), { recursive: true, withFileTypes: true })).filter((e) => !e.isDirectory() && e.name.endsWith('.html')).map((e) => join(e.parentPath, e.name));
    const entryPages = pages.filter((p) => /hostile|local/.test(relative(join(dir, '_site'), p)));
    expect(entryPages.length).toBeGreaterThanOrEqual(2);
    for (const page of pages) {
      // The site's own templates may have script, links and meta, and the header its search
      // form (removed here once: the header comes before any content); nothing from the
      // entries may run or ask for input: no handler, no javascript: or data: URL, no
      // iframe, no form, no script that says alert.
      const html = (await readFile(page, 'utf8')).replace(/<form class="search-form" role="search" action="\/search\/" method="get">[\s\S]*?<\/form>/, '');
      // The search page's own <noscript> note is chrome too, and the Subscribe page's copy
      // buttons; an entry page has none.
      const chrome = ['<script>', '<link>', '<meta>', '<style>', ...(entryPages.includes(page) ? [] : ['<noscript>']), ...(page.endsWith(join('subscribe', 'index.html')) ? ['<button>'] : [])];
      expect(scriptVectors(html).filter((v) => !chrome.includes(v)), page).toEqual([]);
      // The hostile title is text: escaped, it may stand in text attributes (og:title); it
      // must never stand unescaped in the markup, nor in an attribute that can run it.
      expect(html, page).not.toContain('<script>alert');
      for (const el of elementsOf(html)) {
        if (el.tagName === 'script') expect(el.childNodes.map((n) => ('value' in n ? String(n.value) : '')).join(''), page).not.toContain('alert');
        for (const a of el.attrs) {
          if (/^on/i.test(a.name) || ['href', 'src', 'srcset', 'action', 'formaction', 'data', 'poster', 'xlink:href'].includes(a.name)) {
            expect(a.value, `${page} ${el.tagName}[${a.name}]`).not.toMatch(/alert|javascript:/i);
          }
        }
      }
    }
    const hostilePage = await readFile(entryPages.find((p) => p.includes('hostile'))!, 'utf8');
    expect(hostilePage).toContain('Click');
    expect(hostilePage).toContain('here');
  }, 180_000);
});

describe('check through the CLI', () => {
  it('no network, exit 5 on errors, file arguments, changes nothing', async () => {
    await mkdir(join(contentDir, 'entries'), { recursive: true });
    await writeFile(join(contentDir, 'entries/bad.md'), '---\ntitle: [\n---\n\nText.\n');
    await writeFile(join(contentDir, 'entries/good.md'), '---\ntitle: Good\n---\n\nText.\n');
    const before = await snapshot(dir);
    const all = await runCli(['check'], { cwd: dir, env: { CHANGELOG_BASE_URL: 'http://127.0.0.1:9', CHANGELOG_TOKEN: 'unused' } });
    expect(all.code).toBe(5);
    expect(all.stdout).toMatch(/^content\/entries\/bad\.md:\d+: error: invalid YAML frontmatter/m);
    const one = await runCli(['check', 'content/entries/good.md'], { cwd: dir });
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('Checked 1 file: no errors');
    expect(changedPaths(before, await snapshot(dir))).toEqual([]);
  });
});
