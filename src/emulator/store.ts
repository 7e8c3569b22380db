/**
 * The emulator's state (workspaces, tokens, entries, tags, subscribers) and the rules of
 * docs/service-interface.md#states-and-transitions. Where the spec is silent, a typical Laravel
 * service's behaviour: entries newest first by `publish_at`, then creation; a missing slug
 * derived from the title, a used one made unique with `-2`, `-3`; scheduled status `scheduled`;
 * importing an existing email or deleting an unknown one skips it (not in the response).
 */
import { randomUUID } from 'node:crypto';
import validator from 'validator';
import type { z } from 'zod';
import type { EditorJsDocument, latestOptionalFieldSchema, Subscriber, Tag } from '../service/schemas.js';

/** Timestamp in the service's form `YYYY-MM-DDTHH:MM:SS.ffffffZ` (spec: Workspace.created_at). */
export function serviceTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** An entry as the emulator stores it. */
export interface EmulatorEntry {
  identifier: string;
  title: string;
  slug: string;
  /** Service timestamp form. */
  publish_at: string;
  status: string;
  notify_subscribers: boolean;
  /** HTML string, or Editor.js JSON for entries written by the older editor. */
  content: string | EditorJsDocument;
  /** Tag names (tags are assigned in the web editor only; the interface cannot). */
  tags: string[];
  created_at: string;
  updated_at: string;
  /** Creation order, for a stable sort. */
  seq: number;
}

/** A field the public latest-entry endpoint may expose beyond `{uuid, date}`. */
type LatestField = z.infer<typeof latestOptionalFieldSchema>;

/** The workspace settings (spec: Workspace). Flags are integers, as the service sends them. */
export interface EmulatorWorkspaceInfo {
  identifier: string;
  name: string;
  slug: string;
  theme: string;
  is_public: number;
  allow_bots: number;
  show_backlink: number;
  logo_url: string;
  og_image_url: string;
  created_at: string;
}

/** One workspace of the emulator. */
export interface EmulatorWorkspace {
  info: EmulatorWorkspaceInfo;
  /**
   * Its key in a project's `workspaces` (changelog.config.json, docs/sync.md "Several
   * workspaces"), when a seed names one: not served, it names the token's variable the
   * `emulator` command prints and the demo's section.
   */
  key?: string;
  tokens: string[];
  entries: EmulatorEntry[];
  /** As the service returns them (`GET /api/tags`). */
  tags: Tag[];
  /** As the service returns them (`GET /api/subscribers`). */
  subscribers: Subscriber[];
  /** Optional fields exposed by the public latest-entry endpoint ("Latest entry API" settings). */
  latestFields: LatestField[];
  /** Whether entries carry `tags`: `none` (the spec's listing, default), `names` (the real latest entry's) or `objects` (`/api/tags`'). */
  entryTags: EntryTagsForm;
}

/** The forms in which the emulator's listing may carry an entry's tags (see {@link EmulatorWorkspace.entryTags}). */
export const ENTRY_TAGS_FORMS = ['none', 'names', 'objects'] as const;
export type EntryTagsForm = (typeof ENTRY_TAGS_FORMS)[number];

/** A 422 validation failure: Laravel's `{message, errors}`. */
export class EmulatorValidationError extends Error {
  constructor(readonly errors: Record<string, string[]>) {
    const first = Object.values(errors)[0]?.[0] ?? 'The given data was invalid.';
    const more = Object.values(errors).flat().length - 1;
    super(more > 0 ? `${first} (and ${more} more error${more > 1 ? 's' : ''})` : first);
  }
}

/** Lower-case, ASCII, hyphenated slug of a title (the emulator's choice when none is sent). */
export function emulatorSlug(title: string): string {
  const s = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return s || 'entry';
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Whether `s` is a real calendar date written `YYYY-MM-DD`. */
const isValidDate = (s: string): boolean => validator.isDate(s, { format: 'YYYY-MM-DD', strictMode: true, delimiters: ['-'] });

/** A file of the emulator's image host (`media-host.ts`): bytes with a `Content-Type`, or a redirect (tests). */
export type MediaFile = { type: string; body: Buffer; redirect?: undefined } | { redirect: string; status?: number; type?: undefined };

/** The state of the whole emulator: several workspaces, each with its own tokens. */
export class EmulatorStore {
  readonly workspaces: EmulatorWorkspace[] = [];
  /** The files of the image host (`media-host.ts`), by name: served at `/media/<name>`. */
  readonly media = new Map<string, MediaFile>();
  private seq = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Adds a workspace; missing settings get plausible defaults. */
  addWorkspace(init: Partial<EmulatorWorkspaceInfo> & { key?: string; tokens: string[]; latestFields?: LatestField[]; entryTags?: EntryTagsForm }): EmulatorWorkspace {
    const name = init.name ?? 'Workspace';
    const ws: EmulatorWorkspace = {
      info: {
        identifier: init.identifier ?? randomUUID(),
        name,
        slug: init.slug ?? emulatorSlug(name),
        theme: init.theme ?? 'commit',
        is_public: init.is_public ?? 1,
        allow_bots: init.allow_bots ?? 1,
        show_backlink: init.show_backlink ?? 1,
        logo_url: init.logo_url ?? '',
        og_image_url: init.og_image_url ?? '',
        created_at: init.created_at ?? serviceTimestamp(this.now()),
      },
      ...(init.key !== undefined && { key: init.key }),
      tokens: [...init.tokens],
      entries: [],
      tags: [],
      subscribers: [],
      latestFields: init.latestFields ?? [],
      entryTags: init.entryTags ?? 'none',
    };
    this.workspaces.push(ws);
    return ws;
  }

  /** The workspace a bearer token belongs to, if any. */
  byToken(token: string): EmulatorWorkspace | undefined {
    return this.workspaces.find((w) => w.tokens.includes(token));
  }

  /** The workspace with this identifier, if any. */
  byIdentifier(identifier: string): EmulatorWorkspace | undefined {
    return this.workspaces.find((w) => w.info.identifier === identifier);
  }

  /** Entries newest first (by `publish_at`, then creation). */
  listEntries(ws: EmulatorWorkspace, limit?: number): EmulatorEntry[] {
    const sorted = [...ws.entries].sort((a, b) => (a.publish_at < b.publish_at ? 1 : a.publish_at > b.publish_at ? -1 : b.seq - a.seq));
    return limit === undefined ? sorted : sorted.slice(0, limit);
  }

  /**
   * Puts an entry in place as the web editor would (seeding, tests): no validation of
   * the interface, any status, any content form, duplicate slugs allowed.
   */
  insertEntry(
    ws: EmulatorWorkspace,
    init: Partial<Omit<EmulatorEntry, 'seq'>> & { title: string },
  ): EmulatorEntry {
    const now = serviceTimestamp(this.now());
    const publishAt = init.publish_at ?? now;
    const entry: EmulatorEntry = {
      identifier: init.identifier ?? randomUUID(),
      title: init.title,
      slug: init.slug ?? emulatorSlug(init.title),
      publish_at: DATE.test(publishAt) ? `${publishAt}T00:00:00.000000Z` : publishAt,
      status: init.status ?? 'published',
      notify_subscribers: init.notify_subscribers ?? false,
      content: init.content ?? '',
      tags: init.tags ?? [],
      created_at: init.created_at ?? now,
      updated_at: init.updated_at ?? now,
      seq: ++this.seq,
    };
    ws.entries.push(entry);
    return entry;
  }

  /** Changes an entry as the web editor would (tests of incremental pull). */
  updateEntry(ws: EmulatorWorkspace, identifier: string, patch: Partial<Omit<EmulatorEntry, 'identifier' | 'seq'>>): EmulatorEntry {
    const entry = ws.entries.find((e) => e.identifier === identifier);
    if (!entry) throw new Error(`no entry ${identifier}`);
    Object.assign(entry, patch, { updated_at: serviceTimestamp(this.now()) });
    return entry;
  }

  /** Deletes an entry as the web editor would. */
  deleteEntry(ws: EmulatorWorkspace, identifier: string): void {
    ws.entries = ws.entries.filter((e) => e.identifier !== identifier);
  }

  /**
   * `POST /api/entry` (spec endpoint 5, rule 5).
   * @throws {EmulatorValidationError} for a body that breaks the field rules.
   */
  createEntry(ws: EmulatorWorkspace, body: unknown): EmulatorEntry {
    const errors: Record<string, string[]> = {};
    const b = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
    const fail = (field: string, message: string) => (errors[field] ??= []).push(message);
    if (typeof b.title !== 'string' || b.title.trim() === '') fail('title', 'The title field is required.');
    else if (b.title.length > 255) fail('title', 'The title field must not be greater than 255 characters.');
    if (b.slug !== undefined && b.slug !== null && (typeof b.slug !== 'string' || b.slug.length > 255))
      fail('slug', 'The slug field must be a string of at most 255 characters.');
    if (b.publish_at !== undefined && b.publish_at !== null && (typeof b.publish_at !== 'string' || !isValidDate(b.publish_at)))
      fail('publish_at', 'The publish at field must match the format Y-m-d.');
    for (const flag of ['is_published', 'notify_subscribers'] as const)
      if (b[flag] !== undefined && b[flag] !== null && typeof b[flag] !== 'boolean')
        fail(flag, `The ${flag.replace('_', ' ')} field must be true or false.`);
    if (b.html !== undefined && b.html !== null && typeof b.html !== 'string') fail('html', 'The html field must be a string.');
    if (Object.keys(errors).length > 0) throw new EmulatorValidationError(errors);

    const title = (b.title as string).trim();
    const today = serviceTimestamp(this.now()).slice(0, 10);
    const date = (b.publish_at as string | undefined) ?? undefined;
    let status = 'draft';
    if (b.is_published === true) status = date !== undefined && date > today ? 'scheduled' : 'published';
    let slug = typeof b.slug === 'string' && b.slug.trim() !== '' ? b.slug.trim() : emulatorSlug(title);
    if (ws.entries.some((e) => e.slug === slug)) {
      let n = 2;
      while (ws.entries.some((e) => e.slug === `${slug}-${n}`)) n++;
      slug = `${slug}-${n}`;
    }
    return this.insertEntry(ws, {
      title,
      slug,
      publish_at: date ?? serviceTimestamp(this.now()),
      status,
      notify_subscribers: b.notify_subscribers === true,
      content: typeof b.html === 'string' ? b.html : '',
    });
  }

  /**
   * `POST /api/subscribers` (endpoint 8, rules 2 and 4); existing emails skipped.
   * @throws {EmulatorValidationError} when `subscribers` is not an array or a row is invalid (nothing added).
   */
  addSubscribers(ws: EmulatorWorkspace, body: unknown): Subscriber[] {
    const rows = (body as { subscribers?: unknown } | null)?.subscribers;
    if (!Array.isArray(rows)) throw new EmulatorValidationError({ subscribers: ['The subscribers field must be an array.'] });
    const errors: Record<string, string[]> = {};
    rows.forEach((row, i) => {
      const r = (row ?? {}) as Record<string, unknown>;
      if (typeof r.email !== 'string' || !EMAIL.test(r.email)) (errors[`subscribers.${i}.email`] ??= []).push('The email field must be a valid email address.');
      if (r.name !== undefined && r.name !== null && typeof r.name !== 'string') (errors[`subscribers.${i}.name`] ??= []).push('The name field must be a string.');
      if (r.verified_at !== undefined && r.verified_at !== null && (typeof r.verified_at !== 'string' || !isValidDate(r.verified_at)))
        (errors[`subscribers.${i}.verified_at`] ??= []).push('The verified at field must match the format Y-m-d.');
    });
    if (Object.keys(errors).length > 0) throw new EmulatorValidationError(errors);
    const now = this.now();
    const added: Subscriber[] = [];
    const known = new Set(ws.subscribers.map((s) => s.email.toLowerCase()));
    for (const row of rows as Array<Record<string, unknown>>) {
      const email = row.email as string;
      if (known.has(email.toLowerCase())) continue;
      known.add(email.toLowerCase());
      const day = typeof row.verified_at === 'string' ? row.verified_at : serviceTimestamp(now).slice(0, 10);
      const sub: Subscriber = {
        email,
        name: typeof row.name === 'string' ? row.name : '',
        verified_at: `${day}T00:00:00.000000Z`,
        created_at: serviceTimestamp(now),
      };
      ws.subscribers.push(sub);
      added.push(sub);
    }
    return added;
  }

  /**
   * `DELETE /api/subscribers` (endpoint 9); unknown emails skipped.
   * @throws {EmulatorValidationError} when `subscribers` is not an array of `{email}`.
   */
  removeSubscribers(ws: EmulatorWorkspace, body: unknown): string[] {
    const rows = (body as { subscribers?: unknown } | null)?.subscribers;
    if (!Array.isArray(rows)) throw new EmulatorValidationError({ subscribers: ['The subscribers field must be an array.'] });
    const emails = rows.map((r) => (r as { email?: unknown } | null)?.email);
    const bad = emails.findIndex((e) => typeof e !== 'string');
    if (bad >= 0) throw new EmulatorValidationError({ [`subscribers.${bad}.email`]: ['The email field is required.'] });
    const wanted = new Set((emails as string[]).map((e) => e.toLowerCase()));
    const removed = ws.subscribers.filter((s) => wanted.has(s.email.toLowerCase())).map((s) => s.email);
    ws.subscribers = ws.subscribers.filter((s) => !wanted.has(s.email.toLowerCase()));
    return removed;
  }

  /** The public latest entry: the newest published entry, `{uuid, date}` plus exposed fields. */
  latest(ws: EmulatorWorkspace): Record<string, unknown> | undefined {
    const entry = this.listEntries(ws).find((e) => e.status === 'published');
    if (!entry) return undefined;
    const out: Record<string, unknown> = { uuid: entry.identifier, date: entry.publish_at };
    for (const field of ws.latestFields) out[field] = entry[field];
    return out;
  }
}

/** An entry as `GET /api/entries` lists it (spec: "Entry (as returned in lists)"). */
export function entryResource(e: EmulatorEntry, ws?: Pick<EmulatorWorkspace, 'entryTags' | 'tags'>): Record<string, unknown> {
  const resource: Record<string, unknown> = {
    identifier: e.identifier,
    title: e.title,
    slug: e.slug,
    publish_at: e.publish_at,
    status: e.status,
    notify_subscribers: e.notify_subscribers,
    content: e.content,
  };
  if (ws?.entryTags === 'names') resource.tags = [...e.tags];
  else if (ws?.entryTags === 'objects') resource.tags = e.tags.map((name) => ws.tags.find((t) => t.name === name) ?? { name, slug: emulatorSlug(name) });
  return resource;
}
