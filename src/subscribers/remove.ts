/**
 * `subscribers remove` (endpoint 9): addresses from the command line or a CSV file, validated and
 * normalised as an import's, sent in batches; the service's answer splits them into removed and
 * not found.
 */
import type { ChangelogClient } from '../service/client.js';
import type { ErrorCode } from '../core/errors.js';
import { defaultBatchSize, runBatches, settleLostBatches, toBatches, type BatchStatus } from './batches.js';
import type { SubscriberCsv } from './csv-read.js';
import { emailKey, normalizeEmail } from './validate.js';

/** An address to remove and where it came from. */
export interface RemoveTarget {
  email: string;
  /** 1-based line of the file, for `--file`. */
  line?: number;
  /** 1-based position among the command-line addresses. */
  argument?: number;
}

/** An input that is not removed before any request: invalid or repeated. */
interface RemoveSkipped extends RemoveTarget {
  reason: 'missing-email' | 'invalid-email' | 'duplicate';
  message: string;
}

/** The addresses to send, and the inputs left out. */
export interface RemoveTargets {
  targets: RemoveTarget[];
  skipped: RemoveSkipped[];
}

/**
 * Validates, normalises (trim, domain lower-cased) and de-duplicates addresses.
 * @param inputs raw addresses with their origin.
 */
function collectTargets(inputs: ReadonlyArray<{ value: string; line?: number; argument?: number }>): RemoveTargets {
  // By key, in the order given: the targets.
  const seen = new Map<string, RemoveTarget>();
  const skipped: RemoveSkipped[] = [];
  for (const { value, ...origin } of inputs) {
    const check = normalizeEmail(value);
    if (!check.ok) {
      skipped.push({
        email: value.trim(),
        ...origin,
        reason: check.reason,
        message: check.reason === 'missing-email' ? 'no email address' : `${JSON.stringify(value.trim())} is not a valid email address`,
      });
      continue;
    }
    const first = seen.get(emailKey(check.email));
    if (first) {
      skipped.push({ email: check.email, ...origin, reason: 'duplicate', message: `the same address as ${where(first)}` });
      continue;
    }
    seen.set(emailKey(check.email), { email: check.email, ...origin });
  }
  return { targets: [...seen.values()], skipped };
}

/** The addresses of a parsed CSV file's address column, with their lines. */
export function targetsFromCsv(csv: SubscriberCsv): RemoveTargets {
  return collectTargets(csv.rows.map((r) => ({ value: r.email, line: r.line })));
}

/** The addresses given on the command line, with their positions. */
export function targetsFromArguments(emails: readonly string[]): RemoveTargets {
  return collectTargets(emails.map((value, i) => ({ value, argument: i + 1 })));
}

/** "line 4" or "argument 2". */
export function where(t: RemoveTarget): string {
  return t.line !== undefined ? `line ${t.line}` : t.argument !== undefined ? `argument ${t.argument}` : 'input';
}

/** One batch of a removal. */
export interface RemoveBatchSummary {
  index: number;
  size: number;
  status: BatchStatus | 'planned';
  removed: number;
  notFound: number;
  error?: { code: ErrorCode; message: string };
}

/** A target of a batch that failed or was not sent. */
interface RemoveFailed extends RemoveTarget {
  batch: number;
  status: 'failed' | 'deferred' | 'not-sent' | 'interrupted';
  code?: ErrorCode;
  message: string;
}

/** The result of {@link removeSubscribers}. */
export interface RemoveResult {
  dryRun: boolean;
  batchSize: number;
  /**
   * Removed (dry run: would be removed, found in the list). `confirmedByList`: the
   * batch's answer was lost and the list checked afterwards no longer has the address.
   */
  removed: Array<RemoveTarget & { confirmedByList?: true }>;
  /** Asked for but not in the service's answer (dry run: not in the list). */
  notFound: RemoveTarget[];
  skipped: RemoveSkipped[];
  failed: RemoveFailed[];
  batches: RemoveBatchSummary[];
  requests: number;
  dayRemaining: number;
}

/** Options of {@link removeSubscribers}. */
export interface RemoveOptions {
  client: ChangelogClient;
  targets: RemoveTargets;
  batchSize?: number | undefined;
  /** One `GET` to tell what would be removed; no `DELETE`. */
  dryRun?: boolean | undefined;
  onBatch?: (batch: RemoveBatchSummary, total: number) => void;
  /** Once aborted, the batch in flight finishes (its answer or the list tells the outcome); the rest fail as `interrupted`. */
  signal?: AbortSignal;
}

/**
 * Removes subscribers: `DELETE /api/subscribers` batch by batch through the rate budget; a dry run
 * sends one `GET` and compares.
 * @throws {ChangelogSyncError} only from the dry run's `GET`; batch failures are in the result.
 */
export async function removeSubscribers(options: RemoveOptions): Promise<RemoveResult> {
  const { client } = options;
  const { targets, skipped } = options.targets;
  const sentBefore = client.budget.sent;
  const removed: RemoveResult['removed'] = [];
  const notFound: RemoveTarget[] = [];
  const failed: RemoveFailed[] = [];
  const summaries: RemoveBatchSummary[] = [];
  // One request stays in reserve for the check after a lost answer.
  const batchSize = options.batchSize ?? defaultBatchSize(targets.length, client.budget.dayRemaining() - 1);
  const batches = toBatches(targets, batchSize);

  if (options.dryRun) {
    const present = new Set((await client.listSubscribers()).map((s) => emailKey(s.email)));
    batches.forEach((items, i) => {
      const summary: RemoveBatchSummary = { index: i + 1, size: items.length, status: 'planned', removed: 0, notFound: 0 };
      sortOut(items, present, removed, notFound, summary);
      summaries.push(summary);
    });
  } else {
    const runs = await runBatches(
      batches,
      (items) => client.removeSubscribers(items.map((t) => t.email)),
      (run, total) => {
        const summary: RemoveBatchSummary = { index: run.index, size: run.items.length, status: run.status, removed: 0, notFound: 0 };
        if (run.status === 'done') {
          sortOut(run.items, new Set((run.result ?? []).map(emailKey)), removed, notFound, summary);
        } else {
          const error = run.error;
          if (error) summary.error = { code: error.code, message: error.message };
          const message =
            run.status === 'failed'
              ? `${error?.message ?? 'failed'}${run.ambiguous ? '; the answer was lost: the service may have removed it' : ''}`
              : run.status === 'deferred'
                ? 'not sent: the day\'s request budget is spent; run the command again tomorrow'
                : run.status === 'interrupted'
                  ? 'not sent: the run was told to stop (SIGTERM or Ctrl-C) before it; run the same command again'
                  : 'not sent: an earlier batch failed';
          failed.push(...run.items.map((t) => ({ ...t, batch: run.index, status: run.status as RemoveFailed['status'], ...(error && run.status === 'failed' ? { code: error.code } : {}), message })));
        }
        summaries.push(summary);
        options.onBatch?.(summary, total);
      },
      options.signal,
    );
    // After a lost answer, one `GET` tells which addresses are gone; the others stay failed as still there.
    const confirmed = await settleLostBatches(runs, () => client.listSubscribers(), failed, {
      done: (listed) => !listed,
      notDone: '; checked: it is still on the service (run the same command again)',
      unknown: ' (run the same command again: it reports what is left)',
    });
    for (const { email, line, argument, batch } of confirmed) {
      // The target as it was asked for, without the failure's fields.
      removed.push({ email, ...(line === undefined ? {} : { line }), ...(argument === undefined ? {} : { argument }), confirmedByList: true });
      summaries.find((s) => s.index === batch)!.removed++;
    }
  }
  return { dryRun: options.dryRun ?? false, batchSize, removed, notFound, skipped, failed, batches: summaries, requests: client.budget.sent - sentBefore, dayRemaining: client.budget.dayRemaining() };
}

/** Targets whose key is in `found` go to `removed`, the others to `notFound`; counted in `summary`. */
function sortOut(items: RemoveTarget[], found: ReadonlySet<string>, removed: RemoveTarget[], notFound: RemoveTarget[], summary: RemoveBatchSummary): void {
  for (const t of items) {
    if (found.has(emailKey(t.email))) {
      removed.push(t);
      summary.removed++;
    } else {
      notFound.push(t);
      summary.notFound++;
    }
  }
}
