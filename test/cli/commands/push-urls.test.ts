// Links a stranger's trick could make dangerous, through the real CLI against the emulator
// over HTTP: `check` and `push` refuse `javascript:`, `vbscript:` and non-image `data:` URLs
// however they are written (case, spaces, tabs, character references) and paths that leave
// the site's base path, naming the file and line, and push sends nothing; every URL
// attribute push sends (`src`, `href`, `srcset`, `poster`, `data`, `cite`, a `style`'s
// `url()`) is absolute on the site.
//
// An image at an address the guarded fetcher refuses (src/service/guarded-fetch.ts: cloud
// metadata, link-local, private, or a redirect to one) is an error of its entry, through the
// real CLI against the emulator over HTTP: not sent, exit 5, a message naming the file, the
// URL, why and the fix; the other files are sent. Not a deferral (exit 4, "it is sent once
// the site serves it"): such an address is refused on every run. Nothing is requested there.
// `check` reports the addresses it can tell from the URL alone the same way, on their lines.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { htmlUrls } from '../../../src/convert/html-urls.js';
import { runCli } from '../../helpers/process/cli.js';
import { useEntriesProject } from '../../helpers/service/project.js';

const w = useEntriesProject();
const SITE = 'https://owner.github.io/repo/';
const FILE = 'content/entries/2026-04-01-links.md';
const entry = (body: string) => `---\ntitle: Links\nis_published: true\npublish_at: 2026-04-01\n---\n${body}`;
const titled = (title: string, body: string) => `---\ntitle: ${title}\nis_published: true\npublish_at: 2026-04-01\n---\n${body}\n`;
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


/** A loopback host whose image URL redirects to the metadata address (loopback is allowed: the emulator is there). */
let redirector: Server;
let redirectUrl: string;
beforeAll(async () => {
  redirector = createServer((_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/' }).end());
  await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
  redirectUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/shot.png`;
});
afterAll(async () => new Promise<void>((resolve) => redirector.close(() => resolve())));

describe('an image at an address push never requests', () => {
  it('is an error of its entry (exit 5, file, URL, why, fix), not a deferral; the other entry is sent', async () => {
    const refused = 'content/entries/2026-04-01-metadata.md';
    await writeFile(
      w.entry('2026-04-01-metadata.md'),
      titled('Metadata', `![creds](http://169.254.169.254/latest/meta-data/iam/security-credentials/)\n\n![lan](http://10.1.2.3/shot.png)\n\n![hop](${redirectUrl})`),
    );
    await writeFile(w.entry('2026-04-01-plain.md'), titled('Plain', 'No image.'));
    // `check` tells it from the URL alone, on its line, worded as push words it (a redirect is found only by push's request).
    const check = await runCli(['check'], { cwd: w.dir, env: w.env });
    expect(check.code, check.stdout + check.stderr).toBe(5);
    const errors = check.stdout.split('\n').filter((l) => l.includes(': error: '));
    expect(errors).toEqual([
      `${refused}:6: error: the image "http://169.254.169.254/latest/meta-data/iam/security-credentials/" is at an address push never requests (169.254.169.254 is a cloud metadata address), so it can never be checked and the entry is not sent (fix: put the image in content/images/ (published with the site) or use a public http(s) URL)`,
      `${refused}:8: error: the image "http://10.1.2.3/shot.png" is at an address push never requests (10.1.2.3 is a private address), so it can never be checked and the entry is not sent (fix: put the image in content/images/ (published with the site) or use a public http(s) URL)`,
    ]);
    // The file's emulator is shared with the tests above: only this push's POSTs and entries count.
    const before = posts().length;
    const push = await runCli(['push'], { cwd: w.dir, env: { ...w.env, CHANGELOG_SITE_URL: SITE } });
    expect(push.code, push.stdout + push.stderr).toBe(5);
    const fix = '(fix: put the image in content/images/ (published with the site) or use a public http(s) URL)';
    expect(push.stderr).toContain(
      `error: ${refused}: the image "http://169.254.169.254/latest/meta-data/iam/security-credentials/" is at an address push never requests (169.254.169.254 is a cloud metadata address), so it can never be checked and the entry is not sent ${fix}`,
    );
    expect(push.stderr).toContain(`error: ${refused}: the image "http://10.1.2.3/shot.png" is at an address push never requests (10.1.2.3 is a private address)`);
    expect(push.stderr).toContain(`error: ${refused}: the image "${redirectUrl}" is at an address push never requests (redirected to http://169.254.169.254: 169.254.169.254 is a cloud metadata address)`);
    expect(push.stdout + push.stderr).not.toContain('deferred to the next run');
    expect(posts().slice(before).map((p) => p.slug)).toEqual(['plain']);
    expect(w.fx.store.listEntries(w.fx.ws).map((e) => e.title).filter((t) => t !== 'Links')).toEqual(['Plain']);
  });
});
