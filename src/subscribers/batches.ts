/**
 * Subscribers in batches (endpoints 8 and 9 take an array): batches sized to the rate budget and
 * sent in order, each outcome recorded so a failure never hides what came before.
 */
import { ChangelogSyncError, type ErrorCode } from '../core/errors.js';
import { emailKey } from './validate.js';

/** Subscribers per request when the budget does not ask for more. */
const DEFAULT_BATCH_SIZE = 100;

/**
 * The batch size that fits `items` into `requestsLeft` requests: {@link DEFAULT_BATCH_SIZE} or
 * more (docs/service-interface.md#limits: 1,440 a day, shared with every other job).
 */
export function defaultBatchSize(items: number, requestsLeft: number): number {
  return Math.max(DEFAULT_BATCH_SIZE, Math.ceil(items / Math.max(1, requestsLeft)));
}

/** Splits items into consecutive batches of at most `size`. */
export function toBatches<T>(items: readonly T[], size: number): T[][] {
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  return batches;
}

/**
 * What became of one batch: `done` (answered), `failed` (see `error`), `deferred` (the day's
 * budget spent: the next run sends it), `not-sent` (an earlier failure would fail it too),
 * `interrupted` (told to stop first).
 */
export type BatchStatus = 'done' | 'failed' | 'deferred' | 'not-sent' | 'interrupted';

/** One batch and its outcome. */
export interface BatchRun<T, R> {
  /** 1-based. */
  index: number;
  items: T[];
  status: BatchStatus;
  result?: R;
  error?: ChangelogSyncError;
  /** True when the request may have been carried out though it failed (no response, 5xx, unreadable); a 4xx did nothing. */
  ambiguous?: boolean;
}

const AMBIGUOUS: ReadonlySet<ErrorCode> = new Set(['E_NETWORK', 'E_SERVICE', 'E_UNEXPECTED_RESPONSE', 'E_RESPONSE_TOO_LARGE']);

/**
 * Sends the batches in order. After an `E_VALIDATION` refusal (nothing done) the next are still
 * sent; after any other failure they are `not-sent`; past the daily budget, `deferred`.
 * @param send sends one batch (through the client's rate budget).
 * @param onBatch told each batch's outcome as soon as known.
 * @param signal once aborted, the batch in flight finishes and the rest are `interrupted`.
 */
export async function runBatches<T, R>(
  batches: T[][],
  send: (items: T[]) => Promise<R>,
  onBatch?: (run: BatchRun<T, R>, total: number) => void,
  signal?: AbortSignal,
): Promise<Array<BatchRun<T, R>>> {
  const runs: Array<BatchRun<T, R>> = [];
  let stop: 'deferred' | 'not-sent' | 'interrupted' | undefined;
  for (const [i, items] of batches.entries()) {
    let run: BatchRun<T, R>;
    if (!stop && signal?.aborted) stop = 'interrupted';
    if (stop) run = { index: i + 1, items, status: stop };
    else {
      try {
        run = { index: i + 1, items, status: 'done', result: await send(items) };
      } catch (err) {
        const error =
          err instanceof ChangelogSyncError
            ? err
            : new ChangelogSyncError('E_UNEXPECTED_RESPONSE', `batch ${i + 1}: ${(err as Error)?.message ?? String(err)}`, { cause: err });
        if (error.code === 'E_RATE_LIMITED') {
          run = { index: i + 1, items, status: 'deferred', error };
          stop = 'deferred';
        } else {
          run = { index: i + 1, items, status: 'failed', error, ambiguous: AMBIGUOUS.has(error.code) };
          if (error.code !== 'E_VALIDATION') stop = 'not-sent';
        }
      }
    }
    runs.push(run);
    onBatch?.(run, batches.length);
  }
  return runs;
}

/**
 * After batches whose answer was lost, one `GET /api/subscribers` states their outcome: failed
 * items the list shows done leave `failed` (changed in place) and are returned; the others stay,
 * their message saying what the list showed.
 * @param list reads the service's subscribers (one request; callers keep one in reserve).
 * @param failed the failed items with their batch (1-based).
 * @param outcome `done`: whether an item is done, from whether the list shows its address;
 *   `notDone`: added to the message of an item the list says is not done; `unknown`: added to the
 *   message of every item of a lost batch when the `GET` failed too.
 */
export async function settleLostBatches<T extends { batch: number; email: string; message: string }>(
  runs: ReadonlyArray<{ index: number; status: BatchStatus; ambiguous?: boolean }>,
  list: () => Promise<ReadonlyArray<{ email: string }>>,
  failed: T[],
  outcome: { done: (listed: boolean) => boolean; notDone: string; unknown: string },
): Promise<T[]> {
  const lost = new Set(runs.filter((r) => r.status === 'failed' && r.ambiguous).map((r) => r.index));
  if (lost.size === 0) return [];
  let listed: ReadonlySet<string>;
  try {
    listed = new Set((await list()).map((s) => emailKey(s.email)));
  } catch {
    for (const item of failed) if (lost.has(item.batch)) item.message += outcome.unknown;
    return [];
  }
  const done: T[] = [];
  const still: T[] = [];
  for (const item of failed) {
    if (!lost.has(item.batch)) still.push(item);
    else if (outcome.done(listed.has(emailKey(item.email)))) done.push(item);
    else {
      item.message += outcome.notDone;
      still.push(item);
    }
  }
  failed.splice(0, failed.length, ...still);
  return done;
}
