// Recovery before pull writes (src/sync/recovery/recovery.ts): adoption of a local file's own
// entry by slug and title, and the slug conflict (same slug, another title): reported with
// both sides, the entry not mirrored, the file neither overwritten nor sent.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pull } from '../../../src/sync/pull/pull.js';
import { push } from '../../../src/sync/push/push.js';
import { entryNames, pushSetup, writeEntry, type PushSetup } from '../../helpers/sync/entries.js';

let s: PushSetup;
beforeEach(async () => {
  s = await pushSetup();
});
afterEach(() => s.close());
const run = (dryRun = false) => pull({ client: s.fx.client(), contentDir: s.contentDir, stateDir: s.stateDir, dryRun });

describe('a remote entry no state knows, with the slug of a local file without identifier', () => {
  it('same title: bound to the file (identifier written back), not mirrored; a dry run says so and writes nothing', async () => {
    const text = '---\ntitle: New export API\nslug: exports-v2\npublish_at: 2026-11-20\nis_published: true\n---\n\nExports.\n';
    const rel = await writeEntry(s.contentDir, '2026-11-20-exports', text);
    const entry = s.fx.store.insertEntry(s.fx.ws, { title: 'New export API', slug: 'exports-v2', publish_at: '2026-11-20', content: '<p>Exports.</p>' });

    const dry = await run(true);
    expect(dry.bound).toEqual([{ identifier: entry.identifier, file: rel, title: 'New export API', how: 'adopted' }]);
    expect(dry.created).toEqual([]);
    expect(await readFile(join(s.contentDir, rel), 'utf8')).toBe(text);

    const r = await run();
    expect(r.bound.map((b) => [b.file, b.identifier, b.how])).toEqual([[rel, entry.identifier, 'adopted']]);
    expect(r.created).toEqual([]);
    expect(await entryNames(s.contentDir)).toEqual(['2026-11-20-exports.md']);
    const after = await readFile(join(s.contentDir, rel), 'utf8');
    expect(after).toContain(`identifier: ${entry.identifier}`);
    expect(after.endsWith('\n\nExports.\n')).toBe(true);
    const pushed = await push({ client: s.fx.client(), contentDir: s.contentDir, stateDir: s.stateDir });
    expect(pushed.plan).toEqual([]);
    expect(s.posts()).toEqual([]);
  });

  it('another title: a slug conflict with both sides; the entry is not mirrored, the file not overwritten, push sends nothing', async () => {
    const text = '---\ntitle: New export API\npublish_at: 2026-11-20\n---\n\nMine.\n';
    const rel = await writeEntry(s.contentDir, '2026-11-20-new-export-api', text);
    const other = s.fx.store.insertEntry(s.fx.ws, { title: 'Someone else', slug: 'new-export-api', publish_at: '2026-11-19', content: '<p>Theirs.</p>' });

    const r = await run();
    expect(r.slugConflicts).toHaveLength(1);
    const c = r.slugConflicts[0]!;
    expect([c.file, c.slug, c.title, c.remote.identifier, c.remote.title]).toEqual([rel, 'new-export-api', 'New export API', other.identifier, 'Someone else']);
    expect(c.reason).toContain('Someone else');
    expect(c.reason).toContain(rel);
    expect(r.created).toEqual([]);
    expect(await entryNames(s.contentDir)).toEqual(['2026-11-20-new-export-api.md']);
    expect(await readFile(join(s.contentDir, rel), 'utf8')).toBe(text);

    const pushed = await push({ client: s.fx.client(), contentDir: s.contentDir, stateDir: s.stateDir });
    expect(pushed.rejected.map((x) => x.file)).toEqual([rel]);
    expect(s.posts()).toEqual([]);
  });
});
