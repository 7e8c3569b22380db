/**
 * zod schemas of the service interface (docs/service-interface.md#resources-and-their-fields).
 *
 * They accept what the specification leaves open: any `status` string, unknown extra
 * fields (kept, never dropped), `content` as an HTML string or as the older Editor.js JSON
 * form, boolean-like integers, and nulls where nullability is "not shown".
 */
import { z } from 'zod';

/** A boolean the service may send as `true`/`false`, `1`/`0` or `"1"`/`"0"`. */
const booleanLike = z.union([z.boolean(), z.number(), z.string()]).transform((v) => {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  return v === '1' || v.toLowerCase() === 'true';
});

/** One Editor.js block: `{type, data}` (the service's older content form). */
const editorJsBlockSchema = z.looseObject({
  id: z.string().optional(),
  type: z.string(),
  data: z.record(z.string(), z.unknown()).default({}),
});

/** The service's older content form: `{time, blocks: [...], version}` (docs/service-interface.md#known-facts-beyond-the-specification). */
export const editorJsDocumentSchema = z.looseObject({
  time: z.number().optional(),
  blocks: z.array(editorJsBlockSchema),
  version: z.string().optional(),
});
export type EditorJsDocument = z.infer<typeof editorJsDocumentSchema>;

/** Entry content: an HTML string, or Editor.js JSON (as an object, or as a JSON string of one). `null`/absent means an empty body. */
const entryContentSchema = z
  .union([z.string(), editorJsDocumentSchema, z.null()])
  .optional()
  .transform((v): string | EditorJsDocument => {
    if (v == null) return '';
    if (typeof v !== 'string' || !v.trimStart().startsWith('{') || !v.includes('"blocks"')) return v;
    try {
      const parsed = editorJsDocumentSchema.safeParse(JSON.parse(v));
      return parsed.success ? parsed.data : v;
    } catch {
      return v; // not JSON: an HTML string that starts with "{"
    }
  });

/**
 * The tags an entry carries, when sent (docs/service-interface.md#known-facts-beyond-the-specification):
 * names, or objects `{name, ...}` read as their names, blank and repeated ones left out. Any
 * other shape is `undefined`: a pull does not fail on a field the spec does not promise.
 */
const entryTagsSchema = z.unknown().transform((v): string[] | undefined => {
  if (!Array.isArray(v)) return undefined;
  const names = v.map((t: unknown) => (typeof t === 'string' ? t : t && typeof t === 'object' && typeof (t as { name?: unknown }).name === 'string' ? (t as { name: string }).name : '').trim());
  return [...new Set(names.filter(Boolean))];
}).optional();

/**
 * A text field the service may send as another scalar (`status: 5`): kept as its text, so
 * that one odd entry never fails a whole listing (docs/sync.md#odd-data-from-the-service).
 */
const textLike = z.union([z.string(), z.number(), z.boolean()]).nullable().optional();

/**
 * Entry as returned in lists (spec: "Entry (as returned in lists)"). Unknown fields are kept.
 * A null or missing `title` arrives as `''` (pull mirrors it with a title from the slug,
 * `entry/remote-data.ts`); a `title` or `status` of another scalar type as its text.
 */
export const remoteEntrySchema = z.looseObject({
  identifier: z.string().min(1),
  title: textLike.transform((v) => (v == null ? '' : String(v))),
  slug: z.string().nullable().optional().transform((v) => v ?? ''),
  publish_at: z.string().nullable().optional().transform((v) => v ?? null),
  status: textLike.transform((v) => (v == null ? 'draft' : String(v))),
  notify_subscribers: booleanLike.nullable().optional().transform((v) => v ?? false),
  content: entryContentSchema,
  tags: entryTagsSchema,
});
export type RemoteEntry = z.infer<typeof remoteEntrySchema>;

/** Workspace (spec: "Workspace"). Flags are boolean-like integers; unknown fields kept. */
export const workspaceSchema = z.looseObject({
  identifier: z.string().min(1),
  name: z.string().nullable().optional().transform((v) => v ?? ''),
  slug: z.string().nullable().optional().transform((v) => v ?? ''),
  theme: z.string().nullable().optional().transform((v) => v ?? ''),
  is_public: booleanLike.nullable().optional().transform((v) => v ?? true),
  allow_bots: booleanLike.nullable().optional().transform((v) => v ?? true),
  show_backlink: booleanLike.nullable().optional().transform((v) => v ?? false),
  logo_url: z.string().nullable().optional().transform((v) => v ?? null),
  og_image_url: z.string().nullable().optional().transform((v) => v ?? null),
  created_at: z.string().nullable().optional().transform((v) => v ?? null),
});
export type Workspace = z.infer<typeof workspaceSchema>;

/** Tag (spec: "Tag"). */
export const tagSchema = z.looseObject({
  name: z.string(),
  slug: z.string(),
  bg_color: z.string().nullable().optional().transform((v) => v ?? null),
  text_color: z.string().nullable().optional().transform((v) => v ?? null),
});
export type Tag = z.infer<typeof tagSchema>;

/** Subscriber (spec: "Subscriber"). */
export const subscriberSchema = z.looseObject({
  email: z.string(),
  name: z.string().nullable().optional().transform((v) => v ?? ''),
  verified_at: z.string().nullable().optional().transform((v) => v ?? null),
  created_at: z.string().nullable().optional().transform((v) => v ?? null),
});
export type Subscriber = z.infer<typeof subscriberSchema>;

/** The public latest entry's object form: `{uuid, date}` plus the fields a workspace may expose. */
const latestEntryObject = z.looseObject({
  uuid: z.string(),
  date: z.string().nullable(),
  created_at: z.string().nullable().optional(),
  updated_at: z.string().nullable().optional(),
  title: z.string().nullable().optional(),
  slug: z.string().nullable().optional(),
  status: z.string().nullable().optional(),
  notify_subscribers: booleanLike.nullable().optional(),
  content: entryContentSchema,
  tags: z.array(z.string()).nullable().optional(),
});

/** A field the public latest entry may expose beyond `{uuid, date}` (the workspace's "Latest entry API" settings). */
export const latestOptionalFieldSchema = latestEntryObject.keyof().exclude(['uuid', 'date']);

/**
 * Public latest entry (endpoint 4; docs/service-interface.md#known-facts-beyond-the-specification):
 * `{uuid, date}` plus optional fields, or `[uuid, date]` (the spec calls it "an array").
 */
export const latestEntrySchema = z.preprocess(
  (v) => (Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'string') ? { uuid: v[0], date: v[1] } : v),
  latestEntryObject,
);
export type LatestEntry = z.infer<typeof latestEntrySchema>;

/**
 * Body of `POST /api/entry` (spec: "Entry (as sent when creating)"; endpoint 5). The
 * service checks it; the client sends what push built.
 */
export interface CreateEntryInput {
  /** The only required field. */
  title: string;
  slug?: string | undefined;
  /** With a future `publish_at`, the entry is scheduled (rule 5). */
  is_published?: boolean | undefined;
  /** `YYYY-MM-DD` (rule 5). */
  publish_at?: string | undefined;
  notify_subscribers?: boolean | undefined;
  /** The body as HTML. */
  html?: string | undefined;
}

/** A subscriber as sent to `POST /api/subscribers` (spec endpoint 8). */
export interface NewSubscriber {
  name: string;
  email: string;
  /** `YYYY-MM-DD`; when omitted, the service uses the current date (rule 4). */
  verified_at?: string | undefined;
}

/** The response envelope of every authenticated operation (spec: "Response envelope"). */
export const envelopeSchema = z.looseObject({
  success: z.boolean(),
  version: z.string().optional(),
  data: z.unknown().optional(),
  message: z.string().optional(),
});

/** The interface version this client was written against (spec: "Versioning"). */
export const SUPPORTED_VERSION = '1.0';
