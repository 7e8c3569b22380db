// The kill matrix: `sync --skip-build` of 40 new writer's files into a mirror
// of 200 remote entries (5 of them renamed and 5 changed on the service since the last
// pull), killed with SIGKILL at every failpoint of pull, recovery, duplicate repair, push,
// write-back, journal and state saving (src/core/failpoint.ts), then resumed by one `sync
// --skip-build`: exactly 240 remote entries, 240 files, one identifier per file, every
// writer's file byte-identical but for the lines push adds.
//
// The real CLI (dist/cli.js) against the real emulator over HTTP; one seed shared by every
// case (each case gets a copy of the store and of the project); the rate window is
// compressed (a minute of 100 ms for the client, 600 a second at the emulator).
//
// Beyond one case per failpoint: the service changes between the kill and the resume, and
// a `push` killed after its 3rd POST and resumed by `sync`: the
// entries whose answers were lost are bound to their files (never mirrored as new files,
// never sent again), and the job summary names every identifier the resumed run wrote.
import { existsSync } from 'node:fs';
import { cp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILPOINTS, type FailpointName } from '../../../src/core/failpoint.js';
import type { EmulatorStore } from '../../../src/emulator/store.js';
import { parseEntryFile } from '../../../src/entry/entry-file.js';
import { tempDir } from '../../helpers/process/cli.js';
import { expectInvariant, seedStore, startWorld, writeWriterFiles, type World } from '../../helpers/sync/sync-world.js';

const REMOTE = 200;
const FILES = 40;

/** What the resumed run printed (`--json`) and wrote to the job summary, for a {@link Step} `verify`. */
interface Resumed {
  out: { pull: { created: unknown[]; bound: unknown[] }; push: { pushed: unknown[] } };
  summary: string;
}

/**
 * A step before the final resume: a run killed at a failpoint (`name[:n]`; `sync
 * --skip-build` unless `command` says otherwise), a run to completion, a run whose result is
 * lost (the tree goes back, as after a lost commit-back), or a change. A `verify` step makes
 * the resume a `--json` run in GitHub Actions with a job summary, and checks both after it.
 */
type Step =
  | { kill: string; command?: string[] }
  | { run: true }
  | { lose: true }
  | { change: (w: World) => void | Promise<void>; adds?: number }
  | { verify: (w: World, resumed: Resumed) => void | Promise<void> };

const kill = (spec: string): Step => ({ kill: spec });
/** Publishes the pushed drafts on the service: the next pull brings their status into the files. */
const publishDrafts: Step = {
  change: (w) => {
    for (const e of w.store.listEntries(w.ws)) if (e.status === 'draft') w.store.updateEntry(w.ws, e.identifier, { status: 'published' });
  },
};
/** Turns the state directory back into format 1, what 0.1.x wrote: `version: 1` and no `tool` in state.json, a ledger without a version. */
const formatOne: Step = {
  change: async (w) => {
    const statePath = join(w.dir, '.changelog/state.json');
    const state = JSON.parse(await readFile(statePath, 'utf8')) as Record<string, unknown>;
    delete state.tool;
    await writeFile(statePath, `${JSON.stringify({ ...state, version: 1 }, null, 2)}\n`);
    const budgetPath = join(w.dir, '.changelog/budget.json');
    const { ledger } = JSON.parse(await readFile(budgetPath, 'utf8')) as { ledger: unknown };
    await writeFile(budgetPath, `${JSON.stringify({ ledger }, null, 2)}\n`);
  },
};
/** Edits the second copy a killed rename left (the file the state does not know, beside the one it knows): it must be parked, not removed. */
const editRenameCopy: Step = {
  change: async (w) => {
    const state = JSON.parse(await readFile(join(w.dir, '.changelog/state.json'), 'utf8')) as { entries: Record<string, { file: string }> };
    let edited = 0;
    for (const name of await readdir(join(w.contentDir, 'entries'))) {
      const rel = `entries/${name}`;
      const text = await readFile(join(w.contentDir, rel), 'utf8');
      const id = parseEntryFile(rel, text).data.identifier;
      const known = id ? state.entries[id]?.file : undefined;
      if (known && known !== rel && existsSync(join(w.contentDir, known))) {
        await writeFile(join(w.contentDir, rel), `${text}\nA local edit.\n`);
        edited++;
      }
    }
    expect(edited).toBeGreaterThan(0);
  },
};

/** Every failpoint, with the steps that reach it. Keyed by name: a point missing here fails the coverage test. */
const CASES: Record<FailpointName, Step[]> = {
  'pull:after-plan': [kill('pull:after-plan')],
  'pull:before-write': [kill('pull:before-write:3')],
  'pull:after-write': [kill('pull:after-write:3')],
  'pull:mid-rename': [kill('pull:mid-rename:2')],
  'pull:after-rename': [kill('pull:after-rename:2')],
  'pull:before-adopt-write': [{ run: true }, publishDrafts, kill('pull:before-adopt-write:2')],
  'pull:after-adopt-write': [{ run: true }, publishDrafts, kill('pull:after-adopt-write:2')],
  'pull:before-data-write': [kill('pull:before-data-write')],
  'pull:before-state-save': [kill('pull:before-state-save')],
  'pull:after-state-save': [kill('pull:after-state-save')],
  'recovery:before-bind': [kill('push:after-post:3'), kill('recovery:before-bind')],
  'recovery:after-bind': [kill('push:after-post:3'), kill('recovery:after-bind')],
  'recovery:after-journal-remove': [kill('push:after-post:3'), kill('recovery:after-journal-remove')],
  'recovery:before-adopt': [{ lose: true }, kill('recovery:before-adopt:3')],
  'recovery:after-adopt': [{ lose: true }, kill('recovery:after-adopt:3')],
  'repair:before-remove': [kill('pull:mid-rename:2'), kill('repair:before-remove')],
  'repair:before-park': [kill('pull:mid-rename:2'), editRenameCopy, kill('repair:before-park')],
  'repair:after-park': [kill('pull:mid-rename:2'), editRenameCopy, kill('repair:after-park')],
  'push:after-plan': [kill('push:after-plan')],
  'push:before-post': [kill('push:before-post:3')],
  'push:after-post': [kill('push:after-post:3')],
  'push:after-journal-created': [kill('push:after-journal-created:3')],
  'push:after-write-back': [kill('push:after-write-back:3')],
  'push:after-journal-remove': [kill('push:after-journal-remove:3')],
  'push:before-state-save': [kill('push:before-state-save')],
  'push:after-state-save': [kill('push:after-state-save')],
  'write-back:tmp-created': [kill('write-back:tmp-created:3')],
  'journal:before-flush': [kill('journal:before-flush:5')],
  'journal:tmp-created': [kill('journal:tmp-created:5')],
  'journal:after-flush': [kill('journal:after-flush:5')],
  'state:tmp-created': [kill('state:tmp-created:2')],
  'state:after-save': [kill('state:after-save:2')],
  // A state as 0.1.x left it (format 1): the migration killed between budget.json and state.json.
  'state-format:after-file': [formatOne, kill('state-format:after-file')],
  'sync:after-pull': [kill('sync:after-pull')],
  'sync:after-push': [kill('sync:after-push')],
  // A sync that builds, killed as it renders the bodies: the build leaves nothing sync reads.
  'build:mid-bodies': [{ kill: 'build:mid-bodies', command: ['sync'] }],
};

/** New on the service before the killed pull: it creates their files. */
const ADDED = 3;
const addRemote: Step = {
  adds: ADDED,
  change: (w) => {
    for (let i = 1; i <= ADDED; i++) w.store.insertEntry(w.ws, { identifier: `added-${i}`, title: `Added on the service ${i}`, slug: `added-${i}`, publish_at: `2026-01-0${i}`, content: `<p>First version ${i}.</p>` });
  },
};
/**
 * Changes again, after the kill, every entry the killed pull wrote a file for (created,
 * renamed, rewritten): the resumed run must write today's versions, neither keep the
 * killed run's text as the writer's (created) nor see a local edit (rewritten).
 */
const changeWritten: Step = {
  change: (w) => {
    const entries = w.store.listEntries(w.ws);
    const written = [...entries.filter((e) => e.identifier.startsWith('added-')), ...entries.filter((e) => e.identifier.startsWith('remote-')).slice(0, 10)];
    // The ten changed before the killed run (see beforeAll): the newest of the seed.
    expect(written).toHaveLength(ADDED + 10);
    for (const e of written) w.store.updateEntry(w.ws, e.identifier, { content: `<p>Changed after the kill: ${e.identifier}.</p>` });
  },
};

/** The kill left at least one POST the service created whose answer the journal never saw. */
const answerLost: Step = {
  change: async (w) => {
    const journal = JSON.parse(await readFile(join(w.dir, '.changelog/journal.json'), 'utf8')) as { records: Array<{ slug: string }> };
    const listed = new Set(w.store.listEntries(w.ws).map((e) => e.slug));
    expect(journal.records.filter((r) => listed.has(r.slug)).length).toBeGreaterThanOrEqual(1);
  },
};
/**
 * The resumed sync bound the entries whose answers were lost (pull created no file for
 * them), and its job summary names every identifier it wrote: each one bound by pull or
 * pushed, all the writer's files' but those the killed run had written back itself.
 */
const boundAndSummarised: Step = {
  verify: async (w, { out, summary }) => {
    expect(out.pull.created).toEqual([]);
    expect(out.pull.bound.length).toBeGreaterThanOrEqual(1);
    const written = summary.split('\n').filter((l) => /^- `entries\/.*` → /.test(l));
    const ids = await Promise.all([...writers.keys()].map(async (rel) => /^identifier: (.*)$/m.exec(await readFile(join(w.contentDir, rel), 'utf8'))![1]!));
    expect(written.length).toBe(out.pull.bound.length + out.push.pushed.length);
    expect(written.length).toBeGreaterThanOrEqual(FILES - 3);
    for (const line of written) expect(ids.some((id) => line.includes(id)), line).toBe(true);
  },
};

/** Cases beyond one per failpoint: the service changes between the kill and the resume; push killed alone. */
const BEYOND: Array<[string, Step[]]> = [
  ['pull:before-state-save, then the service changes what it wrote', [addRemote, kill('pull:before-state-save'), changeWritten]],
  ['pull:after-write, then the service changes what it wrote', [addRemote, kill('pull:after-write:8'), changeWritten]],
  ['pull:mid-rename, then the service changes what it wrote', [addRemote, kill('pull:mid-rename:3'), changeWritten]],
  ['push (alone) killed after its 3rd POST, resumed by sync: the lost answers bound, the summary complete', [{ kill: 'push:after-post:3', command: ['push'] }, answerLost, boundAndSummarised]],
];

describe('the kill matrix covers every failpoint', () => {
  it('has a case for each registered name, and no other', () => {
    expect(Object.keys(CASES).sort()).toEqual([...FAILPOINTS].sort());
  });
});

/** The writer's files and their texts (written in beforeAll below). */
let writers: Map<string, string>;

describe(`sync of ${FILES} new files into a mirror of ${REMOTE}, killed at each failpoint, resumed by sync`, () => {
  let base: EmulatorStore;
  let root = '';
  let project = '';
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    ({ dir: root, cleanup } = await tempDir('changelog-sync-matrix-'));
    base = seedStore(REMOTE);
    project = join(root, 'project');
    const world = await startWorld(base, project);
    try {
      const pulled = await world.cli(['pull']);
      expect(pulled.code, pulled.stderr).toBe(0);
    } finally {
      await world.close();
    }
    writers = await writeWriterFiles(join(project, 'content'), FILES);
    // Changed on the service since that pull: 5 renamed (slug), 5 rewritten.
    const ws = base.workspaces[0]!;
    const entries = base.listEntries(ws);
    for (const e of entries.slice(0, 5)) base.updateEntry(ws, e.identifier, { slug: `${e.slug}-renamed` });
    for (const e of entries.slice(5, 10)) base.updateEntry(ws, e.identifier, { content: `<p>Rewritten ${e.identifier}.</p>` });
  }, 120_000);
  afterAll(() => cleanup?.());

  it.concurrent.each([...Object.entries(CASES), ...BEYOND])('%s', async (name, steps) => {
    const dir = join(root, name.replace(/[^a-z0-9-]/g, '_'));
    const world = await startWorld(base, dir, project);
    try {
      for (const step of steps) {
        if ('kill' in step) {
          const r = await world.cli(step.command ?? ['sync', '--skip-build'], step.kill);
          expect(r.signal, `${step.kill} was not reached:\n${r.stdout}\n${r.stderr}`).toBe('SIGKILL');
        } else if ('run' in step) {
          const r = await world.cli(['sync', '--skip-build']);
          expect(r.code, r.stderr).toBe(0);
        } else if ('lose' in step) {
          const saved = `${dir}.saved`;
          await cp(dir, saved, { recursive: true });
          const r = await world.cli(['sync', '--skip-build']);
          expect(r.code, r.stderr).toBe(0);
          await rm(dir, { recursive: true, force: true });
          await cp(saved, dir, { recursive: true });
          await rm(saved, { recursive: true, force: true });
        } else if ('change' in step) await step.change(world);
      }
      const verify = steps.flatMap((step) => ('verify' in step ? [step.verify] : []));
      const summaryFile = `${dir}.summary.md`;
      const resumed = verify.length === 0 ? await world.cli(['sync', '--skip-build']) : await world.cli(['--json', 'sync', '--skip-build'], undefined, { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summaryFile });
      expect(resumed.code, `${resumed.stdout}\n${resumed.stderr}`).toBe(0);
      const added = steps.reduce((n, step) => n + ('adds' in step ? (step.adds ?? 0) : 0), 0);
      await expectInvariant(world, REMOTE + added + FILES, writers);
      if (steps.includes(editRenameCopy)) {
        // The edited copy is kept, in .changelog/conflicts/, with the edit.
        const parked = (await readdir(join(dir, '.changelog/conflicts'))).filter((n) => n.startsWith('duplicate-'));
        expect(parked).toHaveLength(1);
        expect(await readFile(join(dir, '.changelog/conflicts', parked[0]!), 'utf8')).toContain('A local edit.');
      }
      for (const check of verify) await check(world, { out: JSON.parse(resumed.stdout) as Resumed['out'], summary: await readFile(summaryFile, 'utf8') });
    } finally {
      await world.close();
    }
  }, 180_000);
});
