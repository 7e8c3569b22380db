// Service data printed by the real CLI: a workspace name (and entry titles) with
// bidirectional controls is shown escaped, in the order its characters are, on stdout,
// stderr, `--json` and in GitHub Actions' annotations and job summary.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useTempDir } from '../../helpers/process/cli.js';
import { emulatorFixture } from '../../helpers/service/emulator.js';

/** Every bidirectional control: embeddings, overrides, isolates and marks. */
const BIDI = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c'];
const ANY_BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('bidirectional controls in service data', () => {
  let dir = '';
  useTempDir((d) => (dir = d), { each: true });

  it('are escaped in what pull prints, human and --json, and in Actions output', async () => {
    const name = `Acme \u202Eexe.txt\u202C ${BIDI.join('')} end`;
    const fx = await emulatorFixture({ workspaceName: name });
    try {
      fx.store.insertEntry(fx.ws, { title: `Fix \u2067evil\u2069 titles`, slug: 'fix', publish_at: '2026-04-01', content: '<p>a</p>' });
      const env = { CHANGELOG_BASE_URL: fx.emu.url, CHANGELOG_TOKEN: fx.token };
      const human = await runCli(['pull', '--dry-run'], { cwd: dir, env });
      expect(human.code, human.stderr).toBe(0);
      expect(human.stdout + human.stderr).not.toMatch(ANY_BIDI);
      expect(human.stdout).toContain('Acme \\u202eexe.txt\\u202c \\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c end');

      const json = await runCli(['--json', 'pull', '--dry-run'], { cwd: dir, env });
      expect(json.stdout).not.toMatch(ANY_BIDI);
      expect((JSON.parse(json.stdout) as { workspace: { name: string } }).workspace.name).toBe(name); // the same JSON

      const summary = join(dir, '..', `${dir.split('/').pop()}-summary.md`);
      writeFileSync(summary, '');
      const actions = await runCli(['sync', '--dry-run'], { cwd: dir, env: { ...env, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary } });
      expect(actions.stdout + actions.stderr).not.toMatch(ANY_BIDI);
      expect(readFileSync(summary, 'utf8')).toContain('\\u202e');
      expect(readFileSync(summary, 'utf8')).not.toMatch(ANY_BIDI);
    } finally {
      await fx.close();
    }
  });
});
