// `changelog-sync dev` as a writer runs it, with no token: a repository's own content/ is
// served offline and a saved edit reloads the page (Eleventy's live-reload websocket says
// "reload" and the served HTML has changed); with no content, the demo, which reloads too
// although .demo/ is git-ignored. Every wait is on an event: a log line, a websocket message.
// `dev --pull`: dev-pull.test.ts.
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, symlink, unlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../helpers/process/cli.js';
import { fileExists, ReloadChannel, untilShown, useDev } from '../../helpers/process/dev-process.js';

/**
 * Makes a change with the live-reload channel open, and resolves with the page once a
 * reload message has come and the page shows what `shows` looks for (a reload of an
 * earlier save, or of the truncated file a save goes through, may come first: then the
 * next one is waited for, so `shows` names the saved state, never just "not the old one").
 */
async function saveAndReload(serverUrl: string, pageUrl: string, save: () => Promise<void>, shows: (html: string) => boolean): Promise<string> {
  const channel = new ReloadChannel(serverUrl);
  try {
    await channel.open;
    let reloaded = channel.next('eleventy.reload');
    await save();
    for (;;) {
      await reloaded;
      reloaded = channel.next('eleventy.reload');
      const html = (await get(pageUrl)).body;
      if (shows(html)) return html;
    }
  } finally {
    channel.close();
  }
}

async function get(url: string): Promise<{ status: number; body: string }> {
  const res = await request(url);
  return { status: res.statusCode, body: await res.body.text() };
}

/** The title in an entry page's `<h1>` (what a reader sees). */
function heading(html: string): string | undefined {
  return /<h1[^>]*>([\s\S]*?)<\/h1>/.exec(html)?.[1]?.replace(/<[^>]+>/g, '').trim();
}

const entry = (title: string, body: string) => `---\ntitle: ${JSON.stringify(title)}\nslug: my-first-entry\npublish_at: 2026-11-01\nis_published: true\n---\n\n${body}\n`;

describe('changelog-sync dev on a repository with its own entries, no token', () => {
  const fx = useDev(async (dir) => {
    // As `init` leaves a repository: the demo and the output are git-ignored.
    await writeFile(join(dir, '.gitignore'), '.demo/\n_site/\n.changelog/\n');
    // The team's theme, over the workspace's (there is no workspace.json yet: "commit").
    await writeFile(join(dir, 'changelog.config.json'), JSON.stringify({ theme: 'paper' }));
    await mkdir(join(dir, 'content/entries'), { recursive: true });
    await writeFile(join(dir, 'content/entries/2026-11-01-my-first-entry.md'), entry('My first entry', 'Written by a writer, with no token.'));
  });

  it("serves the repository's content/, not the demo, and touches no network", async () => {
    expect(fx.dev.stderr).toContain('Previewing content/ as it is: no token and no network needed (`npx changelog-sync dev --pull` refreshes it first).');
    expect(fx.dev.stderr).not.toContain('DEMO');
    expect(fx.url).toMatch(/^http:\/\/localhost:\d+\/$/);
    const index = await get(fx.url);
    expect(index.status).toBe(200);
    expect(index.body).toContain('My first entry');
    expect(index.body).not.toContain('Dark mode is here');
    expect(index.body).toContain('<body class="theme-paper"');
    const page = await get(new URL('/entries/my-first-entry/', fx.url).href);
    expect(heading(page.body)).toBe('My first entry');
    expect(page.body).toContain('Written by a writer, with no token.');
  });

  it('a saved title reloads the page: the live-reload channel says reload, and the page has the new title', async () => {
    const page = await saveAndReload(
      fx.url,
      new URL('/entries/my-first-entry/', fx.url).href,
      () => writeFile(join(fx.dir, 'content/entries/2026-11-01-my-first-entry.md'), entry('My first entry, retitled', 'Written by a writer, with no token.')),
      (html) => heading(html) === 'My first entry, retitled',
    );
    expect(heading(page)).toBe('My first entry, retitled');
    await fx.dev.output(/ok: content\/entries\/2026-11-01-my-first-entry\.md/, 'the ok line');
  });

  it('an invalid file is reported with file and line, and shown on the page', async () => {
    const index = await saveAndReload(
      fx.url,
      fx.url,
      () => writeFile(join(fx.dir, 'content/entries/2026-11-02-broken.md'), '---\ntitle: Broken\npublish_at: 02/11/2026\n---\nx\n'),
      (html) => html.includes('id="changelog-sync-problems"'),
    );
    expect(index).toContain('entries/2026-11-02-broken.md:3');
    await fx.dev.output(/content\/entries\/2026-11-02-broken\.md:3: publish_at: must be a date written YYYY-MM-DD/, 'the error line');
  });

  it('invalid YAML names the file once: the line is the one check prints', async () => {
    const line = 'error: content/entries/2026-11-03-yaml.md:4: invalid YAML frontmatter at column 1: missing closing "quote (fix: quote values that contain ":" or "#", e.g. title: "Fix: exports")';
    await writeFile(join(fx.dir, 'content/entries/2026-11-03-yaml.md'), '---\ntitle: "Y\nbad: [\n---\n\nText.\n');
    await fx.dev.output(/content\/entries\/2026-11-03-yaml\.md:4: .*\n/, 'the YAML error line');
    expect(fx.dev.stderr.split('\n')).toContain(line);
    expect(fx.dev.stderr).not.toMatch(/entries\/2026-11-03-yaml\.md.*entries\/2026-11-03-yaml\.md/);
  });

  it("new's untouched template is reported on save with check's words, never ok:", async () => {
    const made = await runCli(['new', 'Template left'], { cwd: fx.dir });
    expect(made.code, made.stderr).toBe(0);
    const file = /content\/entries\/[\w-]+template-left\.md/.exec(made.stdout + made.stderr)![0];
    const checked = await runCli(['check', file], { cwd: fx.dir });
    const first = checked.stdout.split('\n').find((l) => l.startsWith(`${file}:`) && l.includes('left from the template'))!;
    expect(first).toBeDefined();
    // check: `file:line: error: text`; dev: `error: file:line: text`.
    const [, where, text] = /^(\S+:\d+): error: (.*)$/.exec(first)!;
    await fx.dev.output(new RegExp(`${file.replace(/[.]/g, '\\.')}:\\d+: .*left from the template`), 'the template problem');
    expect(fx.dev.stderr.split('\n')).toContain(`error: ${where}: ${text}`);
    expect(fx.dev.stderr).not.toContain(`ok: ${file}`);
  });

  it('the banner names each kind of problem for what it is: unreadable, a schema field, text check refuses', async () => {
    // By now: broken.md (publish_at breaks the schema), yaml.md (invalid YAML), and the
    // untouched template of `new`; an empty body is added.
    const index = await saveAndReload(
      fx.url,
      fx.url,
      () => writeFile(join(fx.dir, 'content/entries/2026-11-04-empty.md'), '---\ntitle: Empty\npublish_at: 2026-11-04\n---\n'),
      (html) => html.includes('2026-11-04-empty.md'),
    );
    const banner = /<aside id="changelog-sync-problems"[\s\S]*?<\/aside>/.exec(index)![0];
    expect(banner).toContain('<strong>1 entry file cannot be read</strong> (not in the site until fixed)');
    expect(banner).toContain('<strong>1 entry file has a field that breaks the entry schema</strong> (not in the site until fixed)');
    expect(banner).toContain('<strong>2 new entries that check and push refuse as written</strong> (shown here, but not published until fixed)');
    expect(banner).toMatch(/that check and push refuse as written<\/strong>[^]*2026-11-04-empty\.md:\d+<\/code> the body is empty/);
    await unlink(join(fx.dir, 'content/entries/2026-11-04-empty.md'));
  });

  it('a link out of the project refuses the rebuild (printed once, nothing copied), and live reload goes on: removing it recovers', async () => {
    const outside = await tempDir();
    try {
      await writeFile(join(outside.dir, 'secret.png'), 'not in the project');
      await mkdir(join(fx.dir, 'content/images'), { recursive: true });
      const file = join(fx.dir, 'content/entries/2026-11-01-my-first-entry.md');
      await symlink(join(outside.dir, 'secret.png'), join(fx.dir, 'content/images/leak.png'));
      await writeFile(file, entry('Linked away', 'Written by a writer, with no token.'));
      // The rebuild is refused: the problem is printed, nothing is copied through the link,
      // and the served page stays as it was.
      await fx.dev.output(/E_OUTSIDE_PROJECT: content\/images\/leak\.png: .*a symbolic link that resolves outside the project/, 'the printed problem');
      expect(existsSync(join(fx.dir, '_site/images/leak.png'))).toBe(false);
      expect(heading((await get(new URL('/entries/my-first-entry/', fx.url).href)).body)).not.toBe('Linked away');
      const page = await saveAndReload(
        fx.url,
        new URL('/entries/my-first-entry/', fx.url).href,
        async () => {
          await unlink(join(fx.dir, 'content/images/leak.png'));
          await writeFile(file, entry('Link removed', 'Written by a writer, with no token.'));
        },
        (html) => heading(html) === 'Link removed',
      );
      expect(page).not.toContain('leak.png');
      expect(fx.dev.child.exitCode).toBeNull();
      expect(fx.dev.stderr.split('E_OUTSIDE_PROJECT').length - 1).toBe(1);
    } finally {
      await outside.cleanup();
    }
  });

  it("a rebuild's feeds carry the saved body, not the last build's: what the feeds remember starts empty with each build", async () => {
    const file = join(fx.dir, 'content/entries/2026-11-01-my-first-entry.md');
    const page = new URL('/entries/my-first-entry/', fx.url).href;
    // A relative link: the feeds carry the body with absolute URLs, converted once per
    // entry and build, and an edit keeps the entry's URL.
    const guide = new URL('/entries/my-first-entry/guide/', fx.url).href;
    for (const word of ['Alpha', 'Bravo']) {
      await saveAndReload(fx.url, page, () => writeFile(file, entry('Feeds follow', `${word} text, with [a guide](guide/).`)), (html) => html.includes(`${word} text`));
      const atom = (await untilShown(fx.url, new URL('/feed.xml', fx.url).href, (p) => p.body.includes(`${word} text`))).body;
      const json = JSON.parse((await get(new URL('/feed.json', fx.url).href)).body) as { items: Array<{ content_html: string }> };
      expect(atom).toContain(`${word} text`);
      expect(atom).toContain(guide);
      expect(json.items.map((i) => i.content_html).join('\n')).toContain(`${word} text, with <a href="${guide}">a guide</a>`);
    }
  });

  it('never pushes: the entry keeps no identifier', async () => {
    const text = await readFile(join(fx.dir, 'content/entries/2026-11-01-my-first-entry.md'), 'utf8');
    expect(text).not.toMatch(/^identifier:/m);
  });
});

describe("changelog-sync dev: a broken entry's own page", () => {
  const fx = useDev(async (dir) => {
    await mkdir(join(dir, 'content/entries'), { recursive: true });
    await writeFile(join(dir, 'content/entries/2026-11-01-my-first-entry.md'), entry('My first entry', 'Good content.'));
    await writeFile(join(dir, 'content/entries/2026-11-02-other.md'), entry('Other', 'Another entry.').replace('slug: my-first-entry', 'slug: other'));
  });

  it('reloads with the problem at its top and without its stale content, until the file is fixed', async () => {
    const file = join(fx.dir, 'content/entries/2026-11-01-my-first-entry.md');
    const url = new URL('/entries/my-first-entry/', fx.url).href;
    expect(heading((await get(url)).body)).toBe('My first entry');
    // publish_at breaks the schema: the entry is not in the site until fixed.
    const broken = await saveAndReload(fx.url, url, () => writeFile(file, entry('My first entry', 'Good content.').replace('publish_at: 2026-11-01', 'publish_at: 01/11/2026')), (html) =>
      html.includes('id="changelog-sync-problems"'),
    );
    const banner = /<aside id="changelog-sync-problems"[\s\S]*?<\/aside>/.exec(broken)![0];
    expect(banner).toContain('/entries/my-first-entry/ is not in the preview now.');
    expect(banner).toContain('entries/2026-11-01-my-first-entry.md:4</code> publish_at: must be a date written YYYY-MM-DD');
    expect(broken).not.toContain('Good content.');
    // Every other page carries the banner too.
    expect((await get(new URL('/entries/other/', fx.url).href)).body).toContain('id="changelog-sync-problems"');
    // Fixed: the page is the entry again, with no banner.
    const fixed = await saveAndReload(fx.url, url, () => writeFile(file, entry('My first entry, fixed', 'Good content.')), (html) => heading(html) === 'My first entry, fixed');
    expect(fixed).not.toContain('id="changelog-sync-problems"');
    expect(fixed).toContain('Good content.');
  });

  it('the page of a removed entry is gone (not found), not served stale', async () => {
    const url = new URL('/entries/other/', fx.url).href;
    await saveAndReload(fx.url, fx.url, () => unlink(join(fx.dir, 'content/entries/2026-11-02-other.md')), (html) => !html.includes('/entries/other/'));
    const gone = await untilShown(fx.url, url, (p) => p.status === 404);
    expect(gone.status).toBe(404);
    expect(gone.body).not.toContain('Another entry.');
  });
});

describe('changelog-sync dev when a file goes right after its change event', () => {
  // Verbose: Eleventy's watch events are printed ("File changed: ..."), so the test removes
  // the file as soon as the event is out, however the rebuild and the check on save then
  // interleave with the removal.
  const fx = useDev(
    async (dir) => {
      await mkdir(join(dir, 'content/entries'), { recursive: true });
      await writeFile(join(dir, 'content/entries/2026-11-01-my-first-entry.md'), entry('My first entry', 'It stays.'));
    },
    { args: ['--verbose'] },
  );
  const fleeting = (body: string) => `---\ntitle: "Fleeting"\nslug: fleeting\npublish_at: 2026-11-03\nis_published: true\n---\n\n${body}\n`;

  it('keeps serving and reloads without the file; the next save reloads too', async () => {
    const file = join(fx.dir, 'content/entries/2026-11-03-fleeting.md');
    await saveAndReload(fx.url, fx.url, () => writeFile(file, fleeting('Here a moment.')), (html) => html.includes('/entries/fleeting/'));
    const index = await saveAndReload(
      fx.url,
      fx.url,
      async () => {
        const changed = fx.dev.output(/saved: \S*2026-11-03-fleeting\.md/, "the change event");
        await writeFile(file, fleeting('Gone in a moment.'));
        await changed;
        await unlink(file);
      },
      (html) => !html.includes('/entries/fleeting/'),
    );
    expect(index).toContain('/entries/my-first-entry/');
    // Removed is not unreadable: no banner names it.
    expect(index).not.toContain('2026-11-03-fleeting.md');
    expect(fx.dev.child.exitCode).toBeNull();
    const page = await saveAndReload(
      fx.url,
      new URL('/entries/my-first-entry/', fx.url).href,
      () => writeFile(join(fx.dir, 'content/entries/2026-11-01-my-first-entry.md'), entry('Still here', 'It stays.')),
      (html) => heading(html) === 'Still here',
    );
    expect(heading(page)).toBe('Still here');
    expect(fx.dev.stderr).not.toMatch(/Unhandled|unhandled/);
    expect(fx.dev.child.exitCode).toBeNull();
  });
});

describe('changelog-sync dev when Pagefind stops answering after the first build', () => {
  // The first Pagefind (the first build's index) is the real one; every later one never
  // answers (as a backend that died or hung: the package's promise then never settles).
  // A save must still reload the page, and so must the next one.
  const real = createRequire(import.meta.url).resolve(`@pagefind/${process.platform}-${process.arch}/bin/pagefind_extended`);
  // Filled in by the setup, read when dev starts (after it).
  const env: NodeJS.ProcessEnv = {};
  const fx = useDev(
    async (dir) => {
      await mkdir(join(dir, 'content/entries'), { recursive: true });
      await writeFile(join(dir, 'content/entries/2026-11-01-my-first-entry.md'), entry('My first entry', 'Searchable once.'));
      const script = join(dir, 'pagefind-then-silence.sh');
      await writeFile(script, `#!/bin/sh\nif mkdir '${dir}/.pagefind-ran' 2>/dev/null; then exec '${real}' "$@"; fi\necho $$ >> '${dir}/silent.pids'\nexec sleep 600\n`);
      await chmod(script, 0o755);
      env.PAGEFIND_EXTENDED_BINARY_PATH = script;
    },
    { env, args: ['--verbose'] },
  );

  afterAll(async () => {
    // The silent stand-ins, by the process ids they wrote.
    const pids = await readFile(join(fx.dir, 'silent.pids'), 'utf8').catch(() => '');
    for (const pid of pids.split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // gone already
      }
    }
  });

  it('a save reloads the page, and so does the next one', async () => {
    // The first (real) index is written beside the first page served.
    await fx.dev.output(/search index written \(through build \d+\)/, 'the first search index');
    expect((await get(new URL('/pagefind/pagefind.js', fx.url).href)).status).toBe(200);
    const url = new URL('/entries/my-first-entry/', fx.url).href;
    const file = join(fx.dir, 'content/entries/2026-11-01-my-first-entry.md');
    for (const title of ['Saved once', 'Saved twice']) {
      const page = await saveAndReload(fx.url, url, () => writeFile(file, entry(title, 'Searchable once.')), (html) => heading(html) === title);
      expect(heading(page)).toBe(title);
      // The index of the first save's rebuild starts once the preview is idle, and never answers.
      if (title === 'Saved once') await fileExists(join(fx.dir, 'silent.pids'));
    }
    expect(existsSync(join(fx.dir, 'silent.pids'))).toBe(true);
  });
});

describe('changelog-sync dev with no content: the demo, which reloads too', () => {
  const fx = useDev(async (dir) => {
    // .demo/ is git-ignored, as in every repository `init` set up: Eleventy's watcher must still see it.
    await writeFile(join(dir, '.gitignore'), '.demo/\n_site/\n');
    // What `npm start` left: its demo site, which the preview must neither rewrite nor remove.
    await mkdir(join(dir, '.demo/_site'), { recursive: true });
    await writeFile(join(dir, '.demo/_site/index.html'), 'built by npm start\n');
    // A team's partial override: only the footer, over the packaged templates.
    await mkdir(join(dir, 'site/_includes'), { recursive: true });
    // It keeps the show_backlink link (the demo workspace sets show_backlink), as the packaged footer does.
    await writeFile(
      join(dir, 'site/_includes/footer.njk'),
      '<footer class="site-footer">Team footer v1{% if site.showBacklink and site.backlinkUrl %} <a class="backlink" href="{{ site.backlinkUrl }}">hosted</a>{% endif %}</footer>\n',
    );
  }, { args: ['--verbose'] });

  it('serves the demo mirror pulled from the emulator, saying why', async () => {
    expect(fx.dev.stderr).toContain('content/ has no entries yet: previewing the DEMO');
    // A repository that installed the package runs it through npx.
    expect(fx.dev.stderr).toContain('Write your first entry with `npx changelog-sync new "Title"` and run `npx changelog-sync dev` again to preview it.');
    const index = await get(fx.url);
    expect(index.status).toBe(200);
    expect(index.body).toContain('Dark mode is here');
    // show_backlink is set, but the demo has no hosted page (the emulator serves none, and is
    // gone when the command ends): no link to it, nor to anything at the emulator's port.
    expect(index.body).not.toContain('class="backlink"');
    const emulatorPort = /built-in emulator of the changelog service\n\(http:\/\/127\.0\.0\.1:(\d+)/.exec(fx.dev.stderr)![1]!;
    expect(index.body).not.toContain(`:${emulatorPort}`);
  });

  it("writes its own folder, .demo/preview/: the site npm start built in .demo/_site is left as it was", async () => {
    expect(fx.dev.stderr).toContain('Everything is written under .demo/preview/, which git ignores.');
    expect(existsSync(join(fx.dir, '.demo/preview/_site/index.html'))).toBe(true);
    expect(await readFile(join(fx.dir, '.demo/_site/index.html'), 'utf8')).toBe('built by npm start\n');
  });

  it("the demo's images are served: the logo and every entry image", async () => {
    const index = await get(fx.url);
    const srcs = [...index.body.matchAll(/<img[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!);
    expect(srcs.some((s) => s.endsWith('/images/lumen-logo.svg'))).toBe(true);
    // The entries' pictures, as the preview's copies under /img/ (src/site/render/images.ts).
    expect(srcs.filter((s) => s.includes('/img/')).length).toBeGreaterThan(3);
    for (const src of srcs) {
      const res = await request(new URL(src, fx.url));
      await res.body.dump();
      expect(res.statusCode, src).toBe(200);
    }
  });

  it('a saved title under the git-ignored .demo/ reloads the page', async () => {
    const file = join(fx.dir, '.demo/preview/content/entries/2026-11-22-mobile-dashboards.md');
    const text = await readFile(file, 'utf8');
    const page = await saveAndReload(
      fx.url,
      new URL('/entries/mobile-dashboards/', fx.url).href,
      () => writeFile(file, text.replace(/^title: .*$/m, 'title: "Dashboards in your pocket"')),
      (html) => heading(html) === 'Dashboards in your pocket',
    );
    expect(heading(page)).toBe('Dashboards in your pocket');
    await fx.dev.output(/ok: \.demo\/preview\/content\/entries\/2026-11-22-mobile-dashboards\.md/, 'the ok line');
  });

  it("lays the team's site/ over the packaged templates, reloads its edits, and indexes search", async () => {
    const index = await get(fx.url);
    expect(index.body).toContain('Team footer v1');
    const after = await saveAndReload(
      fx.url,
      fx.url,
      () => writeFile(join(fx.dir, 'site/_includes/footer.njk'), '<footer class="site-footer">Team footer v2</footer>\n'),
      (html) => html.includes('Team footer v2'),
    );
    expect(after).toContain('Team footer v2');
    await fx.dev.output(/search index written \(through build \d+\)/, 'the first search index');
    const search = await get(new URL('/pagefind/pagefind.js', fx.url).href);
    expect(search.status).toBe(200);
    expect(search.body.length).toBeGreaterThan(1000);
  });
});
