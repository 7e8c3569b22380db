// Errors a user can fix name the fix, through the commands run in the test's process as the
// CLI runs them (helpers/process/command.ts): a refused connection and a base URL that is a page (404
// on /api/workspace) point at CHANGELOG_BASE_URL; a repository that installed the package is
// never told to run this repository's `npm start`.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { networkHint, notFoundHint } from '../../src/core/errors.js';
import { pullCommand } from '../../src/cli/commands/pull.js';
import { statusCommand } from '../../src/cli/commands/status.js';
import { runCommand } from '../helpers/process/command.js';
import { useTempDir } from '../helpers/process/cli.js';
import { CLOSED_PORT } from '../helpers/service/closed-port.js';

/** Lines of stderr that start with "  fix: ". */
const fixes = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('  fix: '));

describe('errors name their fix', () => {
  let dir = '';
  useTempDir((d) => (dir = d), { each: true });

  it('a refused connection: check CHANGELOG_BASE_URL, with its address', async () => {
    const port = CLOSED_PORT;
    const r = await runCommand((config, reporter) => statusCommand(config, reporter), { cwd: dir, env: { CHANGELOG_BASE_URL: `http://127.0.0.1:${port}`, CHANGELOG_TOKEN: 'tok' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error E_NETWORK: GET http://127.0.0.1:${port}/api/workspace: no response (ECONNREFUSED`);
    expect(fixes(r.stderr)).toEqual([`  fix: check CHANGELOG_BASE_URL (http://127.0.0.1:${port}): nothing accepts connections there; are the host and port right, and is the service up?`]);
  });

  it('a 404 on /api/workspace: the base URL must be the service root, not a page', async () => {
    const server: Server = createHttpServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const r = await runCommand((config, reporter) => pullCommand(config, reporter), { cwd: dir, env: { CHANGELOG_BASE_URL: `http://127.0.0.1:${port}/changelog/lumen`, CHANGELOG_TOKEN: 'tok' } });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`error E_NOT_FOUND: GET http://127.0.0.1:${port}/changelog/lumen/api/workspace: 404 Not Found`);
      expect(fixes(r.stderr)).toEqual([`  fix: CHANGELOG_BASE_URL must be the service root, not a page: http://127.0.0.1:${port}/changelog/lumen has no /api/workspace (try http://127.0.0.1:${port})`]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('status in a repository that installed the package suggests npx changelog-sync, never npm start', async () => {
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'acme-app', scripts: { start: 'node server.js' } }));
    const r = await runCommand((config, reporter) => statusCommand(config, reporter), { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('npm start');
    expect(fixes(r.stderr)).toEqual([
      '  fix: set CHANGELOG_BASE_URL and CHANGELOG_TOKEN, or run `npx changelog-sync sync` (sync against the built-in emulator), or start `npx changelog-sync emulator` and point CHANGELOG_BASE_URL at it',
    ]);
  });

  it("status in changelog-sync's own repository suggests npm start", async () => {
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'changelog-sync' }));
    const r = await runCommand((config, reporter) => statusCommand(config, reporter), { cwd: dir });
    expect(fixes(r.stderr)[0]).toContain('run `npm start` (sync against the built-in emulator)');
  });
});

describe('the fixes, for causes a hermetic test cannot provoke', () => {
  it('an unknown host (ENOTFOUND, or EAI_AGAIN without DNS) names the host', () => {
    const hint = 'check CHANGELOG_BASE_URL (https://changelog.exampel.com): its host "changelog.exampel.com" is not known; is it spelled right, and is this machine online?';
    expect(networkHint(Object.assign(new Error('getaddrinfo ENOTFOUND changelog.exampel.com'), { code: 'ENOTFOUND' }), 'https://changelog.exampel.com/api/workspace')).toBe(hint);
    expect(networkHint(new Error('fetch failed', { cause: Object.assign(new Error('x'), { code: 'EAI_AGAIN' }) }), 'https://changelog.exampel.com/api/workspace')).toBe(hint);
  });

  it('a refused connection on every address (an AggregateError) still names CHANGELOG_BASE_URL; never its credentials', () => {
    const err = new AggregateError([Object.assign(new Error('a'), { code: 'ECONNREFUSED' }), Object.assign(new Error('b'), { code: 'ECONNREFUSED' })]);
    expect(networkHint(err, 'http://user:secret@localhost:4010/api/workspace')).toBe('check CHANGELOG_BASE_URL (http://localhost:4010): nothing accepts connections there; are the host and port right, and is the service up?');
  });

  it('a timeout or a reset gets no base-URL fix; a 404 elsewhere than /api/workspace neither', () => {
    expect(networkHint(Object.assign(new Error('t'), { code: 'UND_ERR_HEADERS_TIMEOUT' }), 'http://localhost:4010/api/workspace')).toBeUndefined();
    expect(notFoundHint('http://localhost:4010/api/entries/abc')).toBeUndefined();
    expect(notFoundHint('http://localhost:4010/api/workspace')).toBe('CHANGELOG_BASE_URL must be the service root, not a page: http://localhost:4010 has no /api/workspace');
  });
});

describe('no message suggests a command of this repository', () => {
  it('no string in src/ says `npm start` or `npm run` (messages use commandLine())', async () => {
    const root = new URL('../../src/', import.meta.url).pathname;
    const offenders: string[] = [];
    for (const rel of await readdir(root, { recursive: true })) {
      if (!rel.endsWith('.ts') || rel === join('core', 'project-command.ts')) continue;
      const code = (await readFile(join(root, rel), 'utf8')).replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
      if (/npm (start|run)\b/.test(code)) offenders.push(rel);
    }
    expect(offenders).toEqual([]);
  });
});
