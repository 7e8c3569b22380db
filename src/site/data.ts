/**
 * The data the site is built from: the mirror, read with the same parser as `check` and
 * `push` (so Eleventy never parses, let alone executes, a writer's frontmatter), rendered
 * with marked and sanitised with sanitize-html.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sanitizeHtml from 'sanitize-html';
import { slugify } from '../mirror/entry-file.js';
import { readEntryFiles, type IndexedFile } from '../mirror/local-index.js';
import { TAGS_DATA_FILE, WORKSPACE_DATA_FILE } from '../mirror/workspace-binding.js';
import { renderBody } from './sanitize.js';

/** One entry as templates see it. */
export interface SiteEntry {
  title: string;
  /** URL-safe, unique slug: the permalink is `/entries/<slug>/`. */
  slug: string;
  /** Site-relative URL, e.g. `/entries/new-export-api/`. */
  url: string;
  /** `YYYY-MM-DD`. */
  date: string;
  /** The date as a Date (midnight UTC), for feed filters. */
  dateObj: Date;
  /** Sanitised HTML of the body. */
  html: string;
  /** Plain text of the first paragraph (descriptions, previews), at most 200 characters. */
  excerpt: string;
  tags: string[];
  identifier: string | undefined;
  status: string | undefined;
  /** Source file, relative to the content directory. */
  file: string;
}

/** Everything templates receive as the `changelog` global. */
export interface SiteData {
  workspace: Record<string, unknown>;
  tags: Array<Record<string, unknown>>;
  /** Visible entries, newest first. */
  entries: SiteEntry[];
  /** Files that could not be read, with the reason (shown by `check` and `dev`). */
  problems: Array<{ file: string; message: string; line?: number }>;
  /** Entries left out: drafts and future publications. */
  hidden: { drafts: number; scheduled: number };
  siteUrl: string;
  /** Build time, ISO. */
  builtAt: string;
}

function excerptOf(html: string): string {
  const para = /<p>([\s\S]*?)<\/p>/.exec(html)?.[1] ?? html;
  const text = sanitizeHtml(para, { allowedTags: [], allowedAttributes: {} })
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > 200 ? `${text.slice(0, 197).trimEnd()}…` : text;
}

async function readJsonOr<T>(path: string, fallback: T): Promise<T> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch {
    return fallback;
  }
}

/**
 * Whether an entry is visible on `today`: published, or scheduled/locally published with
 * a date that has come. Drafts and any other status never appear.
 */
export function visibility(status: string | undefined, isPublished: boolean | undefined, date: string, today: string): 'visible' | 'draft' | 'scheduled' {
  const live = status === 'published' || status === 'scheduled' || (status === undefined && isPublished === true);
  if (!live) return 'draft';
  return date > today ? 'scheduled' : 'visible';
}

/**
 * Loads the site data from a content directory.
 * @param options.today `YYYY-MM-DD` (tests); default the UTC date now.
 */
export async function loadSiteData(contentDir: string, options: { siteUrl?: string; today?: string; files?: IndexedFile[] } = {}): Promise<SiteData> {
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  const files = options.files ?? (await readEntryFiles(contentDir));
  const workspace = await readJsonOr<Record<string, unknown>>(join(contentDir, WORKSPACE_DATA_FILE), {});
  const tags = await readJsonOr<Array<Record<string, unknown>>>(join(contentDir, TAGS_DATA_FILE), []);
  const problems: SiteData['problems'] = [];
  const hidden = { drafts: 0, scheduled: 0 };
  const entries: SiteEntry[] = [];
  const usedSlugs = new Set<string>();
  for (const f of files) {
    if (!f.entry) {
      problems.push({ file: f.rel, message: f.error?.message ?? 'unreadable', line: f.error?.line });
      continue;
    }
    const d = f.entry.data;
    const date = d.publish_at ?? /(\d{4}-\d{2}-\d{2})/.exec(f.rel)?.[1] ?? today;
    const vis = visibility(d.status, d.is_published, date, today);
    if (vis === 'draft') {
      hidden.drafts++;
      continue;
    }
    if (vis === 'scheduled') {
      hidden.scheduled++;
      continue;
    }
    const html = renderBody(f.entry.body);
    entries.push({
      title: d.title,
      slug: slugify(d.slug ?? d.title),
      url: '',
      date,
      dateObj: new Date(`${date}T00:00:00Z`),
      html,
      excerpt: excerptOf(html),
      tags: d.tags ?? [],
      identifier: d.identifier,
      status: d.status,
      file: f.rel,
    });
  }
  entries.sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : a.file < b.file ? 1 : -1));
  // Unique permalinks: the newest keeps the plain slug.
  for (const e of entries) {
    let slug = e.slug;
    if (usedSlugs.has(slug)) slug = `${slug}-${(e.identifier ?? e.file).replace(/[^a-z0-9]/gi, '').slice(0, 8).toLowerCase()}`;
    usedSlugs.add(slug);
    e.slug = slug;
    e.url = `/entries/${slug}/`;
  }
  return { workspace, tags, entries, problems, hidden, siteUrl: options.siteUrl ?? 'http://localhost:8080/', builtAt: new Date().toISOString() };
}
