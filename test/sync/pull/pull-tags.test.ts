// Tags from the service (docs/entry-file.md#tags): when the listing carries an entry's tags
// (names, or tag objects as /api/tags has them), pull writes them into the file, after them
// the file's own tags the service does not have; without them pull keeps the file's as it
// always did. Against the emulator over HTTP; the web editor is simulated with the store.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { remoteEntrySchema } from '../../../src/service/schemas.js';
import { parseEntryFile } from '../../../src/entry/entry-file.js';
import { pull } from '../../../src/sync/pull/pull.js';
import type { EmulatorFixture } from '../../helpers/service/emulator.js';
import { openMirror } from '../../helpers/sync/mirror.js';

let fx: EmulatorFixture;
let contentDir: string;
let stateDir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  const mirror = await openMirror();
  ({ fx, contentDir, stateDir } = mirror);
  cleanup = () => mirror.cleanup();
  fx.ws.tags.push({ name: 'API', slug: 'api', bg_color: '#000000', text_color: '#ffffff' }, { name: 'Fix', slug: 'fix', bg_color: '#ffffff', text_color: '#000000' });
});
afterEach(async () => cleanup());

const run = () => pull({ client: fx.client(), contentDir, stateDir });
const FILE = 'entries/2026-01-02-webhooks.md';
const tagsOf = async () => parseEntryFile(FILE, await readFile(join(contentDir, FILE))).data.tags;

describe('pull and the tags an entry carries', () => {
  it.each(['names', 'objects'] as const)('as %s: written into the file', async (form) => {
    fx.ws.entryTags = form;
    fx.store.insertEntry(fx.ws, { title: 'Webhooks', slug: 'webhooks', publish_at: '2026-01-02', content: '<p>Hooks.</p>', tags: ['API', 'Fix'] });
    const listed = (await fx.client().listEntries())[0]!;
    expect(listed.tags).toEqual(['API', 'Fix']);
    await run();
    expect(await tagsOf()).toEqual(['API', 'Fix']);
  });

  it("a writer's own tag stays when the service's change; the service's come first, without a second copy in another case", async () => {
    fx.ws.entryTags = 'names';
    const e = fx.store.insertEntry(fx.ws, { title: 'Webhooks', slug: 'webhooks', publish_at: '2026-01-02', content: '<p>Hooks.</p>', tags: ['API'] });
    await run();
    // The writer adds tags: not an edit of the entry (it is the writer's field too).
    const path = join(contentDir, FILE);
    await writeFile(path, (await readFile(path, 'utf8')).replace(/^tags:\n {2}- API\n/m, 'tags: [API, Release notes, fix]\n'));
    fx.store.updateEntry(fx.ws, e.identifier, { tags: ['API', 'Fix'], content: '<p>Hooks, retried.</p>' });
    const r = await run();
    expect(r.conflicts).toEqual([]);
    expect(r.updated.map((u) => u.file)).toEqual([FILE]);
    expect(await tagsOf()).toEqual(['API', 'Fix', 'Release notes']);
    expect(await readFile(path, 'utf8')).toContain('Hooks, retried.');
  });

  it('without tags in the listing (as the spec shows it), the file keeps its own, as before', async () => {
    const e = fx.store.insertEntry(fx.ws, { title: 'Webhooks', slug: 'webhooks', publish_at: '2026-01-02', content: '<p>Hooks.</p>', tags: ['API'] });
    expect((await fx.client().listEntries())[0]!).not.toHaveProperty('tags');
    await run();
    expect(await tagsOf()).toBeUndefined();
    const path = join(contentDir, FILE);
    await writeFile(path, (await readFile(path, 'utf8')).replace('---\n\n', 'tags: [Local]\n---\n\n'));
    fx.store.updateEntry(fx.ws, e.identifier, { content: '<p>Hooks, retried.</p>' });
    await run();
    expect(await tagsOf()).toEqual(['Local']);
  });
});

describe('the tags field of a listed entry', () => {
  const parse = (tags: unknown) => remoteEntrySchema.parse({ identifier: 'x', title: 'T', tags }).tags;
  it('reads names and tag objects as names, drops blank, repeated and malformed ones, and is absent otherwise', () => {
    expect(parse(['API', { name: 'Fix', slug: 'fix' }, 'API', ' ', 3, { slug: 'nameless' }, ' Spaced '])).toEqual(['API', 'Fix', 'Spaced']);
    expect(parse(null)).toBeUndefined();
    expect(parse('API')).toBeUndefined();
    expect(remoteEntrySchema.parse({ identifier: 'x', title: 'T' })).not.toHaveProperty('tags');
  });
});
