// `latest <workspace>` through the built CLI: the public endpoint, with no token; an unknown
// workspace is E_NOT_FOUND.
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/process/cli.js';
import { useDemoEmulator } from '../../helpers/service/emulator.js';

describe('latest', () => {
  const fx = useDemoEmulator();

  it('latest: the public endpoint with no token; E_NOT_FOUND for an unknown workspace', async () => {
    const ws = '9f0c2a4e-5b1d-4c7e-8a3f-2d6e1b0c9a57';
    const r = await runCli(['--json', 'latest', ws], { cwd: fx.dir, env: { CHANGELOG_BASE_URL: fx.emu.url } });
    expect(r.code).toBe(0);
    const latest = JSON.parse(r.stdout) as { uuid: string; title: string };
    const newest = fx.emu.store.listEntries(fx.emu.store.byIdentifier(ws)!).find((e) => e.status === 'published')!;
    expect(latest).toMatchObject({ uuid: newest.identifier, title: newest.title });
    expect(fx.emu.log.at(-1)).toMatchObject({ method: 'GET', path: `/api/entries/latest/${ws}`, status: 200 });
    const missing = await runCli(['latest', 'nope', '--base-url', fx.emu.url], { cwd: fx.dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('error E_NOT_FOUND');
  });
});
