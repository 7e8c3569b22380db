// A large pull by the real CLI (workers run compiled code): 260 entries are converted on the
// conversion threads (a pool from 200 jobs on) and written exactly as an inline pull writes
// them; an entry too large to convert among them is named, and the others mirrored.
// The pull's other cases are test/sync/pull/pull-cli.test.ts and
// test/entry/entry-size.test.ts, through the pull command in the test's process.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pull } from '../../../src/sync/pull/pull.js';
import type { PullResult } from '../../../src/sync/pull/pull-run.js';
import { runCli, tempDir, useTempDir } from '../../helpers/process/cli.js';
import { useEmulatorFixture } from '../../helpers/service/emulator.js';
import { expectOversizedEntryReported, seedOversizedEntry } from '../../helpers/sync/oversized-entry.js';

describe('a large pull on the conversion threads', () => {
  const emulator = useEmulatorFixture();

  it('a large pull converts on worker threads and writes exactly what an inline pull writes', async () => {
    for (let i = 0; i < 260; i++) {
      emulator.fx.store.insertEntry(emulator.fx.ws, {
        title: `Release ${i}: "quoted" & <b>`,
        slug: i % 50 === 0 ? 'same-slug' : `release-${i}`,
        publish_at: '2026-03-01',
        content: `<h2>Release ${i}</h2><p>Some <em>text</em> with <a href="https://example.com/${i}">a link</a>.</p><ul><li>one</li><li><input type="checkbox" checked> done</li></ul><pre><code class="language-js">const x = ${i};</code></pre><table><thead><tr><th>a</th></tr></thead><tbody><tr><td>${i}</td></tr></tbody></table>`,
      });
    }
    const viaCli = await tempDir();
    const inline = await tempDir();
    try {
      const r = await runCli(['--json', 'pull'], { cwd: viaCli.dir, env: emulator.env, timeoutMs: 120_000 });
      expect(r.code, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as PullResult).created).toHaveLength(260);
      expect((JSON.parse(r.stdout) as PullResult).threads).toBeGreaterThan(1); // the worker pool
      await pull({ client: emulator.fx.client(), contentDir: join(inline.dir, 'content'), stateDir: join(inline.dir, '.changelog'), render: { threads: 0 } });
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

describe('pull with one entry too large to convert, on the conversion threads', () => {
  let dir: string;
  useTempDir((d) => (dir = d), { each: true });
  const emulator = useEmulatorFixture();

  // 260 entries run on the conversion threads (the pool starts at 200 jobs; 3 entries inline
  // are test/entry/entry-size.test.ts).
  for (const small of [259]) {
    it(`names it, exits 1 and mirrors the ${small} others (${small + 1 >= 200 ? 'threads' : 'inline'})`, async () => {
      seedOversizedEntry(emulator.fx, small);
      const r = await runCli(['--json', 'pull'], { cwd: dir, env: emulator.env, timeoutMs: 120_000 });
      await expectOversizedEntryReported(r, dir, small);
    }, 120_000);
  }
});
