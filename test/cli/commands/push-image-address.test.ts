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
import { runCli } from '../../helpers/process/cli.js';
import { useEntriesProject } from '../../helpers/service/project.js';

const w = useEntriesProject();
const SITE = 'https://owner.github.io/repo/';
const entry = (title: string, body: string) => `---\ntitle: ${title}\nis_published: true\npublish_at: 2026-04-01\n---\n${body}\n`;
const posts = () => w.fx.emu.log.filter((r) => r.method === 'POST');

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
      entry('Metadata', `![creds](http://169.254.169.254/latest/meta-data/iam/security-credentials/)\n\n![lan](http://10.1.2.3/shot.png)\n\n![hop](${redirectUrl})`),
    );
    await writeFile(w.entry('2026-04-01-plain.md'), entry('Plain', 'No image.'));
    // `check` tells it from the URL alone, on its line, worded as push words it (a redirect is found only by push's request).
    const check = await runCli(['check'], { cwd: w.dir, env: w.env });
    expect(check.code, check.stdout + check.stderr).toBe(5);
    const errors = check.stdout.split('\n').filter((l) => l.includes(': error: '));
    expect(errors).toEqual([
      `${refused}:6: error: the image "http://169.254.169.254/latest/meta-data/iam/security-credentials/" is at an address push never requests (169.254.169.254 is a cloud metadata address), so it can never be checked and the entry is not sent (fix: put the image in content/images/ (published with the site) or use a public http(s) URL)`,
      `${refused}:8: error: the image "http://10.1.2.3/shot.png" is at an address push never requests (10.1.2.3 is a private address), so it can never be checked and the entry is not sent (fix: put the image in content/images/ (published with the site) or use a public http(s) URL)`,
    ]);
    const push = await runCli(['push'], { cwd: w.dir, env: { ...w.env, CHANGELOG_SITE_URL: SITE } });
    expect(push.code, push.stdout + push.stderr).toBe(5);
    const fix = '(fix: put the image in content/images/ (published with the site) or use a public http(s) URL)';
    expect(push.stderr).toContain(
      `error: ${refused}: the image "http://169.254.169.254/latest/meta-data/iam/security-credentials/" is at an address push never requests (169.254.169.254 is a cloud metadata address), so it can never be checked and the entry is not sent ${fix}`,
    );
    expect(push.stderr).toContain(`error: ${refused}: the image "http://10.1.2.3/shot.png" is at an address push never requests (10.1.2.3 is a private address)`);
    expect(push.stderr).toContain(`error: ${refused}: the image "${redirectUrl}" is at an address push never requests (redirected to http://169.254.169.254: 169.254.169.254 is a cloud metadata address)`);
    expect(push.stdout + push.stderr).not.toContain('deferred to the next run');
    expect(posts().map((p) => p.slug)).toEqual(['plain']);
    expect(w.fx.store.listEntries(w.fx.ws).map((e) => e.title)).toEqual(['Plain']);
  });
});
