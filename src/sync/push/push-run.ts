/**
 * A push run (`push.ts`): its options, what its parts share, and the result it builds,
 * file by file (docs/sync.md#push-guarantees).
 */
import type { ChangelogClient } from '../../service/client.js';
import { isErrorCode, type ChangelogSyncError } from '../../core/errors.js';
import type { ProbeOutcome } from './image-probe.js';
import type { Journal } from '../recovery/journal.js';
import type { HeldLock } from '../store/lock.js';
import type { PushLease } from './push-lease.js';
import type { PushCandidate, PushRejection } from './push-plan.js';
import type { SyncState } from '../store/state.js';

/** Options of `push` (`push.ts`). */
export interface PushOptions {
  client: ChangelogClient;
  contentDir: string;
  stateDir: string;
  /** Print the plan; send nothing, write nothing. */
  dryRun?: boolean;
  /** Requests in flight at once (p-limit). Default 4. */
  concurrency?: number;
  /** Today as `YYYY-MM-DD` (tests); default the UTC date. */
  today?: string;
  /**
   * How long (ms) after its start a POST that got no answer may still be processed by the
   * service. Default twice the client's request timeout.
   */
  inDoubtMs?: number;
  /** Progress lines (a wait, a recovered lock). */
  onProgress?: (message: string) => void;
  /** Called after each POST of the first round settles: `done` of `total` files sent (for a progress bar). */
  onSent?: (done: number, total: number) => void;
  /** Sleep; default a real timer (tests). */
  sleep?: (ms: number) => Promise<void>;
  /**
   * Told to stop (SIGTERM, SIGINT; reason the signal's name): no POST starts after it, those in
   * flight settle, the rest is pending, the lease is released. A wait for a lease ends.
   */
  signal?: AbortSignal;
  /**
   * The push lease (`push-lease.ts`): its time to live, remote and the environment git runs
   * with (`LeaseOptions.env`), default `origin` and 60 s; `false` for none (`--no-lease`: at
   * most once per directory). An unreadable `origin` is refused (`E_LEASE`) unless the lease is off.
   */
  lease?: { ttlMs?: number; remote?: string; ref?: string; env?: NodeJS.ProcessEnv } | false;
  /**
   * The site's URL with a trailing slash: a body's site URLs are sent absolute on it
   * (`push-body.ts`); without it such a file is pending.
   */
  siteUrl?: string;
  /** The site directory: its `images/` is published beside the content directory's. */
  siteDir?: string;
  /** Size in MB over which a local image is a warning (`entry-links.ts`). Default 5. */
  maxImageMb?: number;
  /** Checks an image URL before its entry is sent; default `probeImage` (image-probe.ts). Not used by a dry run. */
  probeImage?: (url: string) => Promise<ProbeOutcome>;
}

/** A file that will be (or was) sent. */
export interface PushPlanItem {
  file: string;
  title: string;
  slug: string;
  /** True when the slug is derived from the title (written back to the file once pushed). */
  derived_slug: boolean;
  publish_at?: string;
  is_published: boolean;
  /** For a dry run: the HTML that would be sent (site URLs made absolute, `push-body.ts`). */
  html?: string;
  /** For a dry run: the image URLs that must answer before it is sent (`image-probe.ts`). */
  images?: string[];
}

/** One file's outcome. */
export interface PushedItem extends PushPlanItem {
  identifier: string;
  status?: string;
  /**
   * `created`: by this run, identifier from the answer. `reconciled`: by this or an earlier run
   * whose answer was lost, found by slug. `adopted`: a remote entry no file mirrored, with this
   * file's slug, title and date. Neither of the last two is sent again.
   */
  how: 'created' | 'reconciled' | 'adopted';
  /** True for `reconciled` and `adopted`: the entry existed and was not sent again. */
  reconciled: boolean;
}

/** What a push did (or, with `dryRun`, would do). */
export interface PushResult {
  /** Files to send this run or deferred, in order (oldest first). */
  plan: PushPlanItem[];
  pushed: PushedItem[];
  /**
   * Not settled this run (the deferred included); tried again by the next. `identifier` is set
   * for a created entry whose write-back failed (the journal keeps it; nothing is sent again).
   */
  pending: Array<PushPlanItem & { reason: string; identifier?: string }>;
  /** Not sent this run: the day's request budget cannot cover them, or an image they show does not answer yet (a subset of `pending`). */
  deferred: PushPlanItem[];
  /** The files of `deferred` held back because an image they show does not answer yet (`image-probe.ts`); absent when none was checked. */
  awaitingImages?: string[];
  /** Invalid; not sent until fixed. */
  rejected: PushRejection[];
  /** Requests the plan needs at most: one POST per file to send, plus one `GET /api/entries` should an answer be lost or lack the identifier. */
  requests: number;
  /** Earliest start times (ISO) of the POSTs under the rate budget. */
  schedule: string[];
  /** Requests left in the day's budget after this run (or, for a dry run, now). */
  dayRemaining: number;
  /** Things worth saying: a stale lock taken over, a wait for POSTs in doubt, leftovers removed. */
  notes: string[];
  dryRun: boolean;
}

/** Everything one run shares. */
export interface Run {
  options: PushOptions;
  journal: Journal;
  state: SyncState;
  /** Identifiers of remote entries that local files mirror (or that this run wrote back). */
  claimed: Set<string>;
  result: PushResult;
  lock: HeldLock | undefined;
  /** The push lease across clones, when the git remote holds one. */
  lease?: PushLease | undefined;
  inDoubtMs: number;
  sleep: (ms: number) => Promise<void>;
  /** The HTML each file is sent with, by file (`push-body.ts`); a file not in it is sent as its Markdown converts. */
  bodies: ReadonlyMap<string, string>;
  /** Set when sending must stop (auth refused, budget spent, lock or lease lost, told to stop). */
  stop?: ChangelogSyncError;
}

/** A file's plan item: what the report says of it. */
export function planItem(c: PushCandidate): PushPlanItem {
  const p: PushPlanItem = { file: c.file, title: c.entry.data.title, slug: c.slug, derived_slug: c.derived, is_published: c.entry.data.is_published ?? false };
  if (c.entry.data.publish_at) p.publish_at = c.entry.data.publish_at;
  return p;
}

/** Records a file as pending, with the reason. */
export function pend(result: PushResult, c: PushCandidate, reason: string): void {
  result.pending.push({ ...planItem(c), reason });
}

/** Records a file as deferred to the next run (and pending), with the reason. */
export function defer(result: PushResult, p: PushPlanItem, why: string): void {
  result.deferred.push(p);
  result.pending.push({ ...p, reason: `deferred to the next run: ${why}` });
}

/** The budget refused to start a request (day spent, or a 429 asking for hours): not a failure, a deferral. */
export function isBudgetRefusal(err: unknown): boolean {
  return isErrorCode(err, 'E_RATE_LIMITED') && err.status === undefined;
}
