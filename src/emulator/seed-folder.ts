/**
 * A seed from a folder of entry files (`emulator --seed <folder>`, or a content directory's
 * `entries/`): one workspace named after the folder, token `emulator-token`; each file an entry,
 * its body the HTML push would send (`markdown-to-html.ts`). An invalid file stops the seed, named.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { markdownToHtml } from '../convert/markdown-to-html.js';
import { ChangelogSyncError } from '../core/errors.js';
import { parseEntryFile } from '../entry/entry-file.js';
import { emulatorSlug, EmulatorStore } from './store.js';

/** The token of a folder seed's workspace (the same as an empty emulator's). */
const FOLDER_SEED_TOKEN = 'emulator-token';

/**
 * Builds a store from a folder of entry files, or a content directory with `entries/`.
 * @throws {ChangelogSyncError} `E_FILE` when the folder cannot be read or has no entry file; an
 *   invalid file's parse error, naming it.
 */
export async function folderSeedStore(dir: string, now: () => number = Date.now): Promise<EmulatorStore> {
  const folder = existsSync(join(dir, 'entries')) ? join(dir, 'entries') : dir;
  let names: string[];
  try {
    names = (await readdir(folder)).filter((n) => n.endsWith('.md')).sort();
  } catch (cause) {
    throw new ChangelogSyncError('E_FILE', `cannot read seed folder ${folder}: ${(cause as Error).message}`, { cause, file: folder });
  }
  if (names.length === 0) throw new ChangelogSyncError('E_FILE', `seed folder ${folder} has no entry files (*.md)`, { file: folder, hint: 'give a folder of entry files, as src/emulator/demo/entries/ holds them, or a seed JSON file' });
  const store = new EmulatorStore(now);
  // The listing carries tag names, so that a pull writes each file's tags back.
  const ws = store.addWorkspace({ name: basename(resolve(dir)) || 'Workspace', tokens: [FOLDER_SEED_TOKEN], entryTags: 'names' });
  for (const name of names) {
    const path = join(folder, name);
    const { data, body } = parseEntryFile(path, await readFile(path));
    store.insertEntry(ws, {
      ...(data.identifier ? { identifier: data.identifier } : {}),
      title: data.title,
      ...(data.slug ? { slug: data.slug } : {}),
      ...(data.publish_at ? { publish_at: data.publish_at } : {}),
      // As push sends it: published only when the file says so.
      status: data.status ?? (data.is_published === true ? 'published' : 'draft'),
      notify_subscribers: data.notify_subscribers ?? false,
      content: markdownToHtml(body),
      tags: (data.tags ?? []).map((t) => t.trim()).filter(Boolean),
    });
  }
  const tags = new Set(ws.entries.flatMap((e) => e.tags));
  ws.tags.push(...[...tags].map((name) => ({ name, slug: emulatorSlug(name), bg_color: '#eeeeee', text_color: '#333333' })));
  return store;
}
