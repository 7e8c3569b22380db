/**
 * The client's retry policy (docs/sync.md#rate-limits): a GET is retried after a transient
 * failure (no response, 5xx) with exponential backoff and jitter; POST and DELETE never (the
 * service may have acted, and there is no idempotency key); a 429 for every method, a bounded
 * number of times (nothing happened; the {@link RateBudget} holds the next attempt until `Retry-After`).
 */
import { abortable } from '../core/abortable.js';
import { NetworkError, RateLimitedError, ServiceError } from '../core/errors.js';
import type { Method } from './transport.js';

/** How often and how long to retry. Durations in ms; the defaults are a client's. */
export interface RetryPolicy {
  /** Retries of a GET after a transient failure. Default 3. */
  getRetries: number;
  /** Retries of any request after a 429. Default 5. */
  rateLimitRetries: number;
  /** First backoff delay in ms, doubled per retry (times a jitter factor in [0.5, 1)). Default 250. */
  backoffMs: number;
  /** Waits the backoff; default a real timer (tests pass a fake one). */
  sleep: (ms: number) => Promise<void>;
}

/**
 * Runs `attempt` until it succeeds or the policy gives up.
 * @param signal once aborted, no attempt or backoff starts (the request in flight gets it too).
 * @throws the last attempt's error: at once unless a 429 or a GET's transient failure.
 * @throws `signal.reason` once `signal` aborted.
 */
export async function withRetries<T>(method: Method, policy: RetryPolicy, attempt: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  let transientTries = 0;
  let rateLimitedTries = 0;
  for (;;) {
    signal?.throwIfAborted();
    try {
      return await attempt();
    } catch (err) {
      signal?.throwIfAborted();
      if (err instanceof RateLimitedError && err.status === 429 && rateLimitedTries < policy.rateLimitRetries) {
        rateLimitedTries++;
        continue; // the budget already blocks until Retry-After
      }
      const transient = err instanceof NetworkError || err instanceof ServiceError;
      if (method === 'GET' && transient && transientTries < policy.getRetries) {
        const delay = policy.backoffMs * 2 ** transientTries * (0.5 + Math.random() / 2);
        transientTries++;
        await abortable(policy.sleep(delay), signal);
        continue;
      }
      throw err;
    }
  }
}
