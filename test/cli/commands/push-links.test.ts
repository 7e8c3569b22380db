// Links a stranger's trick could make dangerous, through the real CLI against the emulator
// over HTTP: `check` and `push` refuse `javascript:`, `vbscript:` and non-image `data:` URLs
// however they are written (case, spaces, tabs, character references) and paths that leave
// the site's base path, naming the file and line, and push sends nothing; every URL
// attribute push sends (`src`, `href`, `srcset`, `poster`, `data`, `cite`, a `style`'s
// `url()`) is absolute on the site.
import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { htmlUrls } from '../../../src/convert/html-urls.js';
import { runCli } from '../../helpers/process/cli.js';
import { useEntriesProject } from '../../helpers/service/project.js';

const w = useEntriesProject();
const SITE = 'https://owner.github.io/repo/';
const FILE = 'content/entries/2026-04-01-links.md';
const entry = (body: string) => `---\ntitle: Links\nis_published: true\npublish_at: 2026-04-01\n---\n${body}`;
const posts = () => w.fx.emu.log.filter((r) => r.method === 'POST');

describe('links push must never send', () => {
  it('check and push refuse script schemes, non-image data: and paths out of the base path, each on its line', async () => {
    const lines = [
      '[js](javascript:alert(1))', // line 6
      '<a href=" JaVaScRiPt:alert(2)">x</a>',
      '[entity](&#106;avascript&colon;alert(3))',
      '<a href="&#x6A;ava&#x09;script:alert(4)">tab</a>',
      '[vb](VBScript:msgbox)',
      '[page](data:text/html;base64,PHNjcmlwdD4=)',
      '<iframe src="data:image/svg+xml,<svg onload=alert(5)>"></iframe>',
      '<div style="background: url(\'javascript:alert(6)\')">s</div>',
      '![up](/../../escape.png)',
      '<img src="/%2e%2e/%2e%2e/escape.png" alt="encoded">',
      '<a href="/\\evil.example/x">backslash</a>',
      '[ok](https://example.com/) ![pixel](data:image/png;base64,iVBORw0KGgo=)',
    ];
    await writeFile(w.entry('2026-04-01-links.md'), entry(lines.map((l) => `${l}\n`).join('\n')));
    const check = await runCli(['check'], { cwd: w.dir });
    expect(check.code, check.stderr).toBe(5);
    const errors = check.stdout.split('\n').filter((l) => l.includes(': error: '));
    const at = (i: number) => `${FILE}:${6 + 2 * i}: error: `;
    for (const i of [0, 1, 2, 3]) expect(errors, lines[i]).toContainEqual(expect.stringMatching(new RegExp(`^${at(i)}the link ".*" is a javascript: URL`)));
    expect(errors).toContainEqual(expect.stringMatching(new RegExp(`^${at(4)}the link "VBScript:msgbox" is a vbscript: URL`)));
    for (const i of [5, 6]) expect(errors, lines[i]).toContainEqual(expect.stringMatching(new RegExp(`^${at(i)}the link "data:.*" is a data: URL that is not a PNG`)));
    expect(errors).toContainEqual(expect.stringMatching(new RegExp(`^${at(7)}the link "javascript:alert\\(6\\)" is a javascript: URL`)));
    for (const i of [8, 9]) expect(errors, lines[i]).toContainEqual(expect.stringMatching(new RegExp(`^${at(i)}the image ".*escape.png" leaves the site's base path`)));
    expect(errors).toContainEqual(expect.stringMatching(new RegExp(`^${at(10)}the link "/\\\\evil.example/x" leaves the site's base path`)));
    expect(errors).toHaveLength(11); // the https: link and the PNG data: image are fine

    const push = await runCli(['push'], { cwd: w.dir, env: { ...w.env, CHANGELOG_SITE_URL: SITE } });
    expect(push.code, push.stderr).toBe(5);
    expect(push.stderr).toContain(`error: ${FILE}:6: the link "javascript:alert(1)" is a javascript: URL`);
    expect(posts()).toEqual([]);
  });
});

describe('every URL attribute push sends', () => {
  it('is absolute on the site: iframe src, object data, blockquote cite, a style url(), as well as links', async () => {
    const body = [
      '<iframe src="/embed/x" title="Demo"></iframe>',
      '<div style="background: url(../images/ok.png) no-repeat; color: red">styled</div>',
      '<object data="/files/spec.pdf"></object>',
      '<blockquote cite="notes/">quoted</blockquote>',
      '[home](/) [feed](/feed.xml) [web](https://example.com/x)',
    ].join('\n\n');
    await writeFile(w.entry('2026-04-01-links.md'), entry(`${body}\n`));
    const push = await runCli(['push'], { cwd: w.dir, env: { ...w.env, CHANGELOG_SITE_URL: SITE } });
    expect(push.code, push.stderr).toBe(0);
    const sent = w.fx.store.listEntries(w.fx.ws).find((e) => e.title === 'Links')!.content as string;
    expect(htmlUrls(sent).map((u) => `${u.tag} ${u.attribute} ${u.url}`)).toEqual([
      `iframe src ${SITE}embed/x`,
      `div style ${SITE}images/ok.png`,
      `object data ${SITE}files/spec.pdf`,
      `blockquote cite ${SITE}entries/links/notes/`,
      `a href ${SITE}`,
      `a href ${SITE}feed.xml`,
      'a href https://example.com/x',
    ]);
    expect(sent).toContain(`style="background: url(&quot;${SITE}images/ok.png&quot;) no-repeat; color: red"`);
  });
});
