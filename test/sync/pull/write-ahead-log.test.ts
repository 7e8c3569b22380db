// Pull's write-ahead log (src/sync/pull/write-ahead-log.ts): what a killed pull wrote is taken into
// the state only where the file has exactly the text it logged; anything else is dropped.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyPullAhead, clearPullAhead, openPullAhead, PULL_AHEAD_FILE, type AheadRecord } from '../../../src/sync/pull/write-ahead-log.js';
import { readMirrorFile } from '../../../src/sync/pull/mirror-reader.js';
import type { SyncState } from '../../../src/sync/store/state.js';
import { contentHash } from '../../../src/core/hash.js';
import { useTempDir } from '../../helpers/process/cli.js';

describe('pull write-ahead log', () => {
  let dir = '';
  useTempDir((d) => (dir = d));
  const stateDir = () => join(dir, '.changelog');
  const contentDir = () => join(dir, 'content');
  const record = (identifier: string, file: string, text: string): AheadRecord => ({ identifier, file, remoteHash: `r-${identifier}`, localHash: contentHash(text), syncedHash: `s-${identifier}` });
  const fresh = (): SyncState => ({ version: 1, entries: Object.assign(Object.create(null) as SyncState['entries'], { kept: { file: 'entries/kept.md', remoteHash: 'old', localHash: 'old' } }) });

  it('applies a record whose file has the logged text; drops a write that never happened, an edited file, a torn line and a path outside entries/', async () => {
    await mkdir(stateDir(), { recursive: true });
    await mkdir(join(contentDir(), 'entries'), { recursive: true });
    await writeFile(join(contentDir(), 'entries/written.md'), 'the text pull wrote');
    await writeFile(join(contentDir(), 'entries/edited.md'), 'edited by the writer since');
    await writeFile(join(contentDir(), 'entries/kept.md'), 'the old text');
    const log = openPullAhead(stateDir());
    log.write(record('written', 'entries/written.md', 'the text pull wrote'));
    log.write(record('edited', 'entries/edited.md', 'the text pull wrote'));
    log.write(record('kept', 'entries/kept.md', 'a text never written'));
    log.write(record('outside', '../outside.md', 'x'));
    log.close();
    await writeFile(join(stateDir(), PULL_AHEAD_FILE), '{"identifier":"torn","file":"entries/wr', { flag: 'a' });

    const state = fresh();
    const applied = applyPullAhead(stateDir(), state, (rel) => readMirrorFile(contentDir(), rel)?.hash);
    expect([...applied.keys()]).toEqual(['written']);
    expect(applied.get('written')).toBeUndefined();
    expect(state.entries.written).toEqual({ file: 'entries/written.md', remoteHash: 'r-written', localHash: contentHash('the text pull wrote'), syncedHash: 's-written' });
    expect(state.entries.kept).toEqual({ file: 'entries/kept.md', remoteHash: 'old', localHash: 'old' });
    expect(Object.keys(state.entries).sort()).toEqual(['kept', 'written']);

    clearPullAhead(stateDir());
    const again = fresh();
    expect(applyPullAhead(stateDir(), again, (rel) => readMirrorFile(contentDir(), rel)?.hash).size).toBe(0);
    expect(Object.keys(again.entries)).toEqual(['kept']);
  });

  it('a later record of one identifier wins (a rename after a rewrite in one run of the log)', async () => {
    await mkdir(stateDir(), { recursive: true });
    await mkdir(join(contentDir(), 'entries'), { recursive: true });
    await writeFile(join(contentDir(), 'entries/a.md'), 'one');
    await writeFile(join(contentDir(), 'entries/b.md'), 'two');
    const log = openPullAhead(stateDir());
    log.write(record('kept', 'entries/a.md', 'one'));
    log.write(record('kept', 'entries/b.md', 'two'));
    log.close();
    const state = fresh();
    const applied = applyPullAhead(stateDir(), state, (rel) => readMirrorFile(contentDir(), rel)?.hash);
    expect(state.entries.kept!.file).toBe('entries/b.md');
    expect(applied.get('kept')).toEqual({ file: 'entries/kept.md', remoteHash: 'old', localHash: 'old' });
  });
});
