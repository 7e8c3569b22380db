// What a built site holds, read as a reader's tools read it: its files, and its feeds' item ids.
import { readdir } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { parseAtomFeed, parseJsonFeed, parseRssFeed } from 'feedsmith';

/** Every file under `dir`, '/'-separated, relative to it. */
export async function filesOf(dir: string): Promise<string[]> {
  const all = await readdir(dir, { recursive: true, withFileTypes: true });
  return all.filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name).slice(dir.length + 1).split(sep).join('/'));
}

/** The item ids of a feed file (`feed.json`, `rss.xml`, else Atom), read by feedsmith. */
export function feedIds(file: string, text: string): string[] {
  if (file.endsWith('feed.json')) return parseJsonFeed(JSON.parse(text)).items!.map((i) => i.id!);
  if (file.endsWith('rss.xml')) return parseRssFeed(text).items!.map((i) => i.guid!.value!);
  return parseAtomFeed(text).entries!.map((e) => e.id!);
}
