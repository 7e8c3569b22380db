// Content that never changes on the way, end to end as a user runs it: the
// service's HTML (the emulator over HTTP) through `pull`, the Markdown file it writes,
// `check`, and `build` (the real Eleventy), each command run in the test's process as the CLI
// runs it (helpers/process/command.ts): hostile text reaches the page as text, feeds stay well-formed
// XML (read by a strict parser, saxes), NUL from the service gives a file the tool reads back,
// and `build` names every entry file it could not read.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DomUtils, parseDocument } from 'htmlparser2';
import { SaxesParser } from 'saxes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCommand } from '../../src/cli/commands/build.js';
import { checkCommand } from '../../src/cli/commands/check.js';
import { pullCommand } from '../../src/cli/commands/pull.js';
import { runCommand } from '../helpers/process/command.js';
import { tempDir } from '../helpers/process/cli.js';
import { emulatorFixture, type EmulatorFixture } from '../helpers/service/emulator.js';

/** The errors a strict XML 1.0 parser reports on a document (none when well-formed). */
function xmlErrors(xml: string): string[] {
  const errors: string[] = [];
  const parser = new SaxesParser({ xmlns: true });
  parser.on('error', (e) => errors.push(e.message));
  parser.write(xml).close();
  return errors;
}

/** The text of an entry page's body (the `.entry-body` element, else the `<article>`). */
function entryText(html: string): string {
  const doc = parseDocument(html);
  const body = DomUtils.findOne((el) => /\bentry-body\b/.test(el.attribs.class ?? ''), doc.children) ?? DomUtils.findOne((el) => el.name === 'article', doc.children);
  return DomUtils.textContent(body ?? doc).replace(/\s+/g, ' ').trim();
}

let fx: EmulatorFixture;
let dir: string;
let cleanup: () => Promise<void>;
let env: Record<string, string>;
const ids: Record<string, string> = {};

beforeAll(async () => {
  fx = await emulatorFixture();
  ({ dir, cleanup } = await tempDir());
  env = { CHANGELOG_BASE_URL: fx.emu.url, CHANGELOG_TOKEN: fx.token };
  const add = (key: string, title: string, slug: string, content: string) =>
    (ids[key] = fx.store.insertEntry(fx.ws, { title, slug, publish_at: '2026-05-01', content, status: 'published' }).identifier);
  add('select', 'Select menu', 'select-menu', '<p>Fixed the &lt;select&gt; menu; List&lt;String&gt; works.</p><p>*stars* _under_ `tick` [br](x) ~~s~~ a|b &amp;copy; 1) #</p>');
  add('script', 'After a script', 'after-script', '<p>Before</p><script>alert(1)</script>Then <strong>this</strong> and <em>that</em>.');
  add('backspace', 'Back\u0008space \ufffe title', 'backspace', '<p>Body with U+FFFE: a\ufffeb and a bell \u0007.</p>');
  add('nul', 'Nul body', 'nul-body', '<p>Before\u0000after</p>');
});
afterAll(async () => {
  await fx.close();
  await cleanup();
});

describe('pull, check and build keep the service text as text', () => {
  it('pull writes files the tool reads back, with a note for the title it changed', async () => {
    const r = await runCommand((config, reporter) => pullCommand(config, reporter), { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`  note: the title of ${ids.backspace} ("Backspace  title") has 2 characters no feed can hold (U+0008, U+FFFE): dropped in the mirror file`);
    const nul = await readFile(join(dir, 'content/entries/2026-05-01-nul-body.md'), 'utf8');
    expect(nul).not.toContain('\u0000');
    expect(nul).toContain('Before\ufffdafter');
    const markdown = await readFile(join(dir, 'content/entries/2026-05-01-select-menu.md'), 'utf8');
    expect(markdown).toContain('Fixed the \\<select> menu; List\\<String> works.');
    // Every pulled file passes the gate before something permanent.
    const check = await runCommand((config, reporter) => checkCommand(config, reporter), { cwd: dir });
    expect(check.stdout).toBe('Checked 4 files: no errors\n');
  });

  it('build: the page shows the text; Atom and RSS are well-formed XML', async () => {
    const r = await runCommand((config, reporter) => buildCommand(config, reporter), { cwd: dir, env: { CHANGELOG_SITE_URL: 'https://changelog.example.com/' } });
    expect(r.code, r.stderr).toBe(0);
    const page = (slug: string) => readFile(join(dir, '_site/entries', slug, 'index.html'), 'utf8');
    const select = entryText(await page('select-menu'));
    expect(select).toContain('Fixed the <select> menu; List<String> works.');
    expect(select).toContain('*stars* _under_ `tick` [br](x) ~~s~~ a|b &copy; 1) #');
    const script = await page('after-script');
    expect(entryText(script)).toContain('Before Then this and that.');
    expect(script).toContain('<strong>this</strong>');
    expect(script).not.toContain('alert(1)');
    expect(entryText(await page('nul-body'))).toContain('Before\ufffdafter');
    for (const feed of ['feed.xml', 'rss.xml']) {
      const xml = await readFile(join(dir, '_site', feed), 'utf8');
      expect(xmlErrors(xml), feed).toEqual([]);
      expect(xml).toContain('Backspace  title');
      expect(xml).not.toMatch(/[^\P{Cc}\t\n\r\u007f-\u009f]|[\ufffe\uffff]/u);
    }
  });

  it('the strict parser is not blind: the characters the feeds lost break XML', () => {
    expect(xmlErrors('<?xml version="1.0"?><a>x\u0008y</a>')).not.toEqual([]);
    expect(xmlErrors('<?xml version="1.0"?><a>x\ufffey</a>')).not.toEqual([]);
    expect(xmlErrors('<?xml version="1.0"?><a>x y</a>')).toEqual([]);
  });

  it('build names every entry file it could not read, and exits 5', async () => {
    await writeFile(join(dir, 'content/entries/2026-05-02-bad-utf8.md'), Buffer.concat([Buffer.from('---\ntitle: Bad\n---\n\nText '), Buffer.from([0xc3, 0x28]), Buffer.from('\n')]));
    await writeFile(join(dir, 'content/entries/2026-05-03-nul.md'), '---\ntitle: Nul\n---\n\nA\u0000B\n');
    const r = await runCommand((config, reporter) => buildCommand(config, reporter), { cwd: dir, env: { CHANGELOG_SITE_URL: 'https://changelog.example.com/' } });
    expect(r.code).toBe(5);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
    expect(lines).toEqual([
      'error: content/entries/2026-05-02-bad-utf8.md: not valid UTF-8 (not in the site until fixed)',
      'error: content/entries/2026-05-03-nul.md:5: contains a NUL byte (not in the site until fixed)',
    ]);
    expect(r.stdout).toMatch(/; 2 entry files could not be read and are missing\n4 of 4 entries are on the site\n$/);
    // The readable entries are built all the same.
    expect(entryText(await readFile(join(dir, '_site/entries/select-menu/index.html'), 'utf8'))).toContain('List<String>');
  });
});
