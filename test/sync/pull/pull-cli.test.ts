// `changelog-sync pull` as a user runs it, against the emulator over HTTP: exit codes, a
// conflict and a no-op through the pull command (run in the test's process as the CLI runs it,
// helpers/process/command.ts); a pull while another process holds the lock through the real CLI.
import { spawn } from 'node:child_process';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../src/core/config.js';
import type { Reporter } from '../../../src/cli/output/reporter.js';
import { pullCommand } from '../../../src/cli/commands/pull.js';
import type { PullResult } from '../../../src/sync/pull/pull-run.js';
import { runCli, tempDir } from '../../helpers/process/cli.js';
import { runCommand } from '../../helpers/process/command.js';
import { emulatorFixture, type EmulatorFixture } from '../../helpers/service/emulator.js';
import { changedPaths, snapshot } from '../../helpers/site/snapshot.js';

let fx: EmulatorFixture;
let env: Record<string, string>;
beforeAll(async () => {
  fx = await emulatorFixture();
  env = { CHANGELOG_BASE_URL: fx.emu.url, CHANGELOG_TOKEN: fx.token };
});
afterAll(async () => fx.close());
/** `changelog-sync pull`. */
const pullCmd = (config: Config, reporter: Reporter) => pullCommand(config, reporter);

describe('pull as a user runs it', () => {
  it('exit 0, then exit 3 with the conflict named when a file changed on both sides; no-op writes only the request ledger', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const a = fx.store.insertEntry(fx.ws, { title: 'Webhooks v2', slug: 'webhooks-v2', publish_at: '2026-02-01', content: '<p>Signed payloads.</p>' });
      const first = await runCommand(pullCmd, { cwd: dir, env });
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toContain('+ entries/2026-02-01-webhooks-v2.md');

      const before = await snapshot(dir);
      const again = await runCommand(pullCmd, { cwd: dir, env, json: true });
      expect(again.code).toBe(0);
      expect((JSON.parse(again.stdout) as PullResult).writes).toEqual([]);
      expect(changedPaths(before, await snapshot(dir))).toEqual(['.changelog/budget.json']); // the requests made are counted against the day

      const file = join(dir, 'content/entries/2026-02-01-webhooks-v2.md');
      await writeFile(file, (await readFile(file, 'utf8')).replace('Signed payloads.', 'Signed payloads (edited in a PR).'));
      fx.store.updateEntry(fx.ws, a.identifier, { content: '<p>Signed and retried payloads.</p>' });
      const conflict = await runCommand(pullCmd, { cwd: dir, env });
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
});
