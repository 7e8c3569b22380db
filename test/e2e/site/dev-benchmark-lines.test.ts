// Eleventy's own benchmark lines (`[11ty] Benchmark ... Transform`) stay out of `dev`'s output
// unless `--verbose`: the real `dev`, over a project whose `.eleventy.js` adds a transform that
// takes most of the build (it spins), which Eleventy's benchmark reports; with --verbose the
// line is there, which shows the project provokes it.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DevProcess } from '../../helpers/process/dev-process.js';
import { useTempDir } from '../../helpers/process/cli.js';
import { writeEntry } from '../../helpers/sync/entries.js';

vi.setConfig({ testTimeout: 180_000 });

const PLUGIN = fileURLToPath(new URL('../../../dist/site/pipeline/plugin.js', import.meta.url));

describe('dev and Eleventy benchmark lines', () => {
  let dir = '';
  useTempDir((d) => (dir = d), { each: true });
  let dev: DevProcess | undefined;
  // The first build is over once dev says where it serves, and its lines are printed: the
  // process is ended without waiting for its Ctrl-C handling (this is not what is tested).
  afterEach(async () => {
    const child = dev?.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
  });

  async function project(): Promise<void> {
    for (let i = 1; i <= 3; i++) await writeEntry(join(dir, 'content'), `2026-01-0${i}-entry-${i}`, `---\ntitle: Entry ${i}\nis_published: true\npublish_at: 2026-01-0${i}\n---\nThe text of entry ${i}.\n`);
    await writeFile(
      join(dir, '.eleventy.js'),
      [
        `import changelogSite from ${JSON.stringify(PLUGIN)};`,
        'export default function (eleventyConfig) {',
        '  eleventyConfig.addPlugin(changelogSite);',
        // Most of the build's time, so that Eleventy's benchmark names it (over 8 % and 50 ms).
        '  eleventyConfig.addTransform("slowOnPurpose", (content) => { const end = Date.now() + 150; while (Date.now() < end); return content; });',
        '}',
        "export const config = { dir: { includes: '_includes' }, templateFormats: ['njk', 'html', '11ty.js'], htmlTemplateEngine: 'njk' };",
        '',
      ].join('\n'),
    );
  }

  it('are not printed by `dev`', async () => {
    await project();
    dev = new DevProcess(dir);
    await dev.output(/Serving the changelog at (\S+)/, 'the dev server');
    expect(`${dev.stdout}${dev.stderr}`).not.toMatch(/Benchmark/);
  });

  it('are printed by `dev --verbose`', async () => {
    await project();
    dev = new DevProcess(dir, ['--verbose']);
    await dev.output(/Serving the changelog at (\S+)/, 'the dev server');
    expect(`${dev.stdout}${dev.stderr}`).toMatch(/\[11ty\] Benchmark .*"slowOnPurpose" Transform/);
  });
});
