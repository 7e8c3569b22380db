/**
 * Waiting that a cancelled job stops: a promise raced against an `AbortSignal`
 * (the service client's backoff and rate-budget waits, `service/retry.ts`,
 * `service/rate-budget.ts`).
 */

/**
 * `promise`, or a rejection once `signal` aborts, whichever is first; what `promise` stands for
 * goes on, its later rejection ignored. Without `signal`, `promise` itself.
 * @throws `signal.reason` when `signal` aborted first; else what `promise` rejects with.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.finally(() => signal.removeEventListener('abort', onAbort)).then(resolve, reject);
  });
}
