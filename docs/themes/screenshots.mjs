// Regenerates the theme pictures of the README (docs/themes/<theme>.png): the demo site,
// built once per theme, photographed by headless Chromium. Run from the repository root
// after `npm run build`: node docs/themes/screenshots.mjs [/path/to/chromium]
import { spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { chromium } from 'playwright-core';

const repo = resolve('.');
const cli = join(repo, 'dist/cli.js');
const work = mkdtempSync(join(tmpdir(), 'theme-shots-'));
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CHANGELOG_')));
const run = (args, extra = {}) => {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: work, env: { ...env, ...extra }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
};
run(['sync']); // the demo: its first product in .demo/content/app
const types = { '.html': 'text/html', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png', '.js': 'text/javascript' };
const browser = await chromium.launch({ executablePath: process.argv[2] ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  for (const theme of ['commit', 'paper', 'mono']) {
    const out = join(work, `_site-${theme}`);
    run(['build'], { CHANGELOG_CONTENT_DIR: '.demo/content/app', CHANGELOG_OUTPUT_DIR: out, CHANGELOG_THEME: theme });
    // Served at the demo's site URL (http://localhost:8080/), where its logo is.
    const server = createServer((req, res) => {
      let file = join(out, decodeURIComponent(new URL(req.url, 'http://x').pathname));
      if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
      if (!existsSync(file)) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
      createReadStream(file).pipe(res);
    });
    await new Promise((r) => server.listen(8080, 'localhost', r));
    const page = await browser.newPage({ viewport: { width: 960, height: 720 }, deviceScaleFactor: 0.625, colorScheme: 'light' });
    await page.goto('http://localhost:8080/', { waitUntil: 'networkidle' });
    await page.screenshot({ path: join(repo, `docs/themes/${theme}.png`) });
    await page.close();
    await new Promise((r) => server.close(r));
  }
} finally {
  await browser.close();
  rmSync(work, { recursive: true, force: true });
}
