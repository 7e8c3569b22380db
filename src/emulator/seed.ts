/**
 * Seeds for the emulator: a JSON file describing workspaces, their keys and tokens, entries,
 * tags and subscribers (`changelog-sync emulator --seed demo|FILE`). The demo's has two
 * products, `app` and `api`.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ChangelogSyncError } from '../core/errors.js';
import { WORKSPACE_KEY } from '../core/workspace-entries.js';
import { folderSeedStore } from './seed-folder.js';
import { editorJsDocumentSchema, latestOptionalFieldSchema } from '../service/schemas.js';
import { EmulatorStore, ENTRY_TAGS_FORMS, serviceTimestamp } from './store.js';

/** One entry of a seed. `publish_at` is `YYYY-MM-DD` or a full timestamp; a date may be relative: `+3d`/`-10d` from today. */
const seedEntrySchema = z.object({
  identifier: z.string().optional(),
  title: z.string(),
  slug: z.string().optional(),
  publish_at: z.string().optional(),
  status: z.string().default('published'),
  notify_subscribers: z.boolean().default(false),
  content: z.union([z.string(), editorJsDocumentSchema]).default(''),
  tags: z.array(z.string()).default([]),
});

/** One workspace of a seed. */
const seedWorkspaceSchema = z.object({
  identifier: z.string().optional(),
  /** Its key in a project's `workspaces` (store.ts `EmulatorWorkspace.key`): a key per workspace, or none. */
  key: z.string().regex(WORKSPACE_KEY, 'a workspace key: lower-case letters and digits, words joined by single "-"').optional(),
  name: z.string(),
  slug: z.string().optional(),
  theme: z.string().optional(),
  is_public: z.number().int().min(0).max(1).optional(),
  allow_bots: z.number().int().min(0).max(1).optional(),
  show_backlink: z.number().int().min(0).max(1).optional(),
  logo_url: z.string().optional(),
  og_image_url: z.string().optional(),
  tokens: z.array(z.string().min(1)).min(1),
  latest_fields: z.array(latestOptionalFieldSchema).default([]),
  /** Whether the listing carries each entry's tags: `none`, `names` or `objects` (store.ts `entryTags`). */
  entry_tags: z.enum(ENTRY_TAGS_FORMS).default('none'),
  tags: z.array(z.object({ name: z.string(), slug: z.string(), bg_color: z.string(), text_color: z.string() })).default([]),
  subscribers: z.array(z.object({ email: z.string(), name: z.string().default(''), verified_at: z.string().nullable().default(null) })).default([]),
  entries: z.array(seedEntrySchema).default([]),
});

/** A whole seed file. */
const seedSchema = z.object({
  workspaces: z
    .array(seedWorkspaceSchema)
    .min(1)
    .refine((ws) => ws.every((w) => w.key === undefined) || (ws.every((w) => w.key !== undefined) && new Set(ws.map((w) => w.key)).size === ws.length), 'give every workspace a key of its own, or none a key'),
});

/** Path of the demo seed shipped with changelog-sync. */
const DEMO_SEED_PATH = fileURLToPath(new URL('../../src/emulator/demo/seed.json', import.meta.url));

/** The demo's images: the workspace's logo, the entries' screenshots (served by the image host, `media-host.ts`). */
export const DEMO_IMAGES_DIR = fileURLToPath(new URL('../../src/emulator/demo/images/', import.meta.url));

/** `Content-Type` of the demo's images, by extension. */
const IMAGE_TYPES: Record<string, string> = { '.svg': 'image/svg+xml', '.png': 'image/png', '.jpg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp' };

/** Folder of the local demo entries that `npm start` pushes. */
export const DEMO_ENTRIES_DIR = fileURLToPath(new URL('../../src/emulator/demo/entries/', import.meta.url));

/** A seed's date: `+3d`/`-10d` from `now` (ms) as `YYYY-MM-DD`, any other value as is. */
function resolveDate(value: string | undefined, now: number): string | undefined {
  const rel = value === undefined ? null : /^([+-]\d+)d$/.exec(value);
  return rel ? new Date(now + Number(rel[1]) * 86_400_000).toISOString().slice(0, 10) : value;
}

/**
 * Loads a seed: `demo`, a JSON file, or a folder of entry files (seed-folder.ts).
 * @throws {ChangelogSyncError} `E_FILE` for an unreadable or non-JSON file; `E_VALIDATION` against the seed schema (naming the file and the field).
 */
export async function loadSeed(nameOrPath: string, now: () => number = Date.now): Promise<EmulatorStore> {
  const path = nameOrPath === 'demo' ? DEMO_SEED_PATH : nameOrPath;
  if (nameOrPath !== 'demo' && (await stat(path).catch(() => undefined))?.isDirectory()) return folderSeedStore(path, now);
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch (cause) {
    throw new ChangelogSyncError('E_FILE', `cannot read seed ${path}: ${(cause as Error).message}`, { cause, file: path });
  }
  const parsed = seedSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ChangelogSyncError('E_VALIDATION', `${path}: ${issue.path.join('.')}: ${issue.message}`, {
      file: path,
      field: issue.path.join('.'),
    });
  }
  const store = new EmulatorStore(now);
  const t = now();
  for (const { tokens, latest_fields, entry_tags, tags, subscribers, entries, ...info } of parsed.data.workspaces) {
    const ws = store.addWorkspace({ ...info, tokens, latestFields: latest_fields, entryTags: entry_tags });
    ws.tags.push(...tags);
    for (const s of subscribers) {
      const verified = s.verified_at?.length === 10 ? `${s.verified_at}T00:00:00.000000Z` : s.verified_at || null;
      ws.subscribers.push({ ...s, verified_at: verified, created_at: serviceTimestamp(t) });
    }
    // Oldest first, so that creation order matches publication order.
    for (const e of [...entries].reverse()) {
      store.insertEntry(ws, { ...e, publish_at: resolveDate(e.publish_at, t) });
    }
  }
  // The demo's entries show screenshots from the service's image host: `{{media}}/<file>`.
  if (nameOrPath === 'demo') {
    for (const name of await readdir(DEMO_IMAGES_DIR)) {
      const type = IMAGE_TYPES[extname(name).toLowerCase()];
      if (type) store.media.set(name, { type, body: await readFile(join(DEMO_IMAGES_DIR, name)) });
    }
  }
  return store;
}
