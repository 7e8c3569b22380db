// `changelog-sync pull` as a user runs it: the real CLI against the emulator over HTTP.
import { spawn } from 'node:child_process';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pull } from '../../../src/sync/pull/pull.js';
import type { PullResult } from '../../../src/sync/pull/pull-run.js';
import { runCli, tempDir } from '../../helpers/cli.js';
import { emulatorFixture, type EmulatorFixture } from '../../helpers/emulator.js';
import { changedPaths, snapshot } from '../../helpers/snapshot.js';

let fx: EmulatorFixture;
let env: Record<string, string>;
beforeAll(async () => {
  fx = await emulatorFixture();
  env = { CHANGELOG_BASE_URL: fx.emu.url, CHANGELOG_TOKEN: fx.token };
});
afterAll(async () => fx.close());

describe('pull through the CLI', () => {
  it('exit 0, then exit 3 with the conflict named when a file changed on both sides; no-op writes only the request ledger', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const a = fx.store.insertEntry(fx.ws, { title: 'Webhooks v2', slug: 'webhooks-v2', publish_at: '2026-02-01', content: '<p>Signed payloads.</p>' });
      const first = await runCli(['pull'], { cwd: dir, env });
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toContain('+ entries/2026-02-01-webhooks-v2.md');

      const before = await snapshot(dir);
      const again = await runCli(['--json', 'pull'], { cwd: dir, env });
      expect(again.code).toBe(0);
      expect((JSON.parse(again.stdout) as PullResult).writes).toEqual([]);
      expect(changedPaths(before, await snapshot(dir))).toEqual(['.changelog/budget.json']); // the requests made are counted against the day

      const file = join(dir, 'content/entries/2026-02-01-webhooks-v2.md');
      await writeFile(file, (await readFile(file, 'utf8')).replace('Signed payloads.', 'Signed payloads (edited in a PR).'));
      fx.store.updateEntry(fx.ws, a.identifier, { content: '<p>Signed and retried payloads.</p>' });
      const conflict = await runCli(['pull'], { cwd: dir, env });
      expect(conflict.code).toBe(3);
      expect(conflict.stdout).toContain(`! conflict: entries/2026-02-01-webhooks-v2.md was edited locally and changed remotely; local kept, remote version in .changelog/conflicts/${a.identifier}.md`);
      expect(await readFile(file, 'utf8')).toContain('(edited in a PR)');
      expect(await readFile(join(dir, `.changelog/conflicts/${a.identifier}.md`), 'utf8')).toContain('Signed and retried payloads.');
    } finally {
      fx.store.deleteEntry(fx.ws, fx.store.listEntries(fx.ws)[0]!.identifier);
      await cleanup();
    }
  });

  it('a pull while another process (a push) holds the content directory fails with E_LOCKED and writes nothing', async () => {
    const { dir, cleanup } = await tempDir();
    const lockUrl = new URL('../../../dist/sync/store/lock.js', import.meta.url).href;
    const holder = spawn(process.execPath, ['--input-type=module', '-e', `const m = await import(${JSON.stringify(lockUrl)}); await m.acquireLock(${JSON.stringify(join(dir, '.changelog'))}, 'push'); console.log('held'); setTimeout(() => {}, 600000);`], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve) => holder.stdout.on('data', (d: Buffer) => d.toString().includes('held') && resolve()));
      fx.store.insertEntry(fx.ws, { title: 'Locked out', slug: 'locked-out', publish_at: '2026-02-02', content: '<p>x</p>' });
      const r = await runCli(['pull'], { cwd: dir, env });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('error E_LOCKED');
      expect(r.stderr).toContain('push');
      expect(await readdir(dir)).toEqual(['.changelog']);
    } finally {
      holder.kill();
      fx.store.deleteEntry(fx.ws, fx.store.listEntries(fx.ws).find((e) => e.slug === 'locked-out')!.identifier);
      await cleanup();
    }
  });

  it('a large pull converts on worker threads and writes exactly what an inline pull writes', async () => {
    for (let i = 0; i < 260; i++) {
      fx.store.insertEntry(fx.ws, {
        title: `Release ${i}: "quoted" & <b>`,
        slug: i % 50 === 0 ? 'same-slug' : `release-${i}`,
        publish_at: '2026-03-01',
        content: `<h2>Release ${i}</h2><p>Some <em>text</em> with <a href="https://example.com/${i}">a link</a>.</p><ul><li>one</li><li><input type="checkbox" checked> done</li></ul><pre><code class="language-js">const x = ${i};</code></pre><table><thead><tr><th>a</th></tr></thead><tbody><tr><td>${i}</td></tr></tbody></table>`,
      });
    }
    const viaCli = await tempDir();
    const inline = await tempDir();
    try {
      const r = await runCli(['--json', 'pull'], { cwd: viaCli.dir, env, timeoutMs: 120_000 });
      expect(r.code, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as PullResult).created).toHaveLength(260);
      expect((JSON.parse(r.stdout) as PullResult).threads).toBeGreaterThan(1); // the worker pool
      await pull({ client: fx.client(), contentDir: join(inline.dir, 'content'), stateDir: join(inline.dir, '.changelog'), render: { threads: 0 } });
      const names = (await readdir(join(inline.dir, 'content/entries'))).sort();
      expect((await readdir(join(viaCli.dir, 'content/entries'))).sort()).toEqual(names);
      expect(names.filter((n) => n.startsWith('2026-03-01-same-slug'))).toHaveLength(6);
      for (const n of names) {
        expect(await readFile(join(viaCli.dir, 'content/entries', n), 'utf8'), n).toBe(await readFile(join(inline.dir, 'content/entries', n), 'utf8'));
      }
      expect(await readFile(join(viaCli.dir, '.changelog/state.json'), 'utf8')).toBe(await readFile(join(inline.dir, '.changelog/state.json'), 'utf8'));
    } finally {
      await viaCli.cleanup();
      await inline.cleanup();
    }
  });
});
