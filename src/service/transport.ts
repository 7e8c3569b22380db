/**
 * One HTTP exchange with the service (docs/service-interface.md#authentication, #limits): JSON
 * headers and the bearer token; a slot of the {@link RateBudget}, corrected by the response's
 * bounded `x-ratelimit-*` headers (`rate-headers.ts`; a 429 blocks the budget until
 * `Retry-After`); the body read up to a cap; the status judged by `http-errors.ts`. Retrying is
 * the caller's (`retry.ts`).
 */
import { request, type Dispatcher } from 'undici';
import { ChangelogSyncError, RateLimitedError } from '../core/errors.js';
import { readCapped } from './responses.js';
import { cutOffError, noResponseError, responseError } from './http-errors.js';
import type { RateBudget } from './rate-budget.js';
import { readRateHeaders } from './rate-headers.js';

/** The methods the interface uses. */
export type Method = 'GET' | 'POST' | 'DELETE';

/** What every request of a client shares. */
export interface Transport {
  dispatcher: Dispatcher;
  budget: RateBudget;
  /** Timeout in ms for the headers, for the body, and for the whole exchange. */
  timeoutMs: number;
  /** Largest response body read, in bytes. */
  maxResponseBytes: number;
  /** Receives every response's method, URL, status and duration (for `--verbose`). */
  onResponse?: ((info: { method: string; url: string; status: number; ms: number }) => void) | undefined;
  /** Told, once per header name, that a rate-limit header was out of bounds and ignored. */
  onNote?: ((message: string) => void) | undefined;
  /** Names of the headers already noted (filled by {@link exchange}). */
  noted?: Set<string>;
}

/** One request. */
export interface Exchange {
  method: Method;
  /** The full URL, without credentials (it is named in messages). */
  url: string;
  /** Sent as `Authorization: Bearer <token>` when set. */
  token?: string | undefined;
  /** Sent as JSON when set. */
  body?: unknown;
  /**
   * Called once the budget admitted the request, just before it is sent (push's fence: lock and
   * lease still held). When it throws, nothing is sent and that error is thrown.
   */
  beforeSend?: (() => Promise<void>) | undefined;
  /** Cancels the exchange: a wait for the budget stops without booking, a request sent is aborted. */
  signal?: AbortSignal | undefined;
}

/** A 2xx response. */
interface RawResponse {
  status: number;
  /** Parsed JSON, or `undefined` for an empty body. */
  json: unknown;
}

/**
 * Sends one request through the budget and returns the parsed JSON of a 2xx response.
 *
 * @throws {ChangelogSyncError} the status's translation (`http-errors.ts`); `E_NETWORK` when no
 *   response came or its body was cut off (an abort after booking included);
 *   `E_RESPONSE_TOO_LARGE` past `maxResponseBytes`; `E_RATE_LIMITED` from the budget.
 * @throws `ex.signal`'s reason when it aborted before a slot was booked.
 */
export async function exchange(transport: Transport, ex: Exchange): Promise<RawResponse> {
  const { method, url } = ex;
  const { budget } = transport;
  const slot = await budget.acquire(ex.signal);
  if (ex.beforeSend) {
    try {
      await ex.beforeSend();
    } catch (err) {
      budget.settle(slot);
      throw err;
    }
  }
  const headers: Record<string, string> = {
    accept: 'application/json',
    'content-type': 'application/json',
    'user-agent': 'changelog-sync',
  };
  if (ex.token) headers.authorization = `Bearer ${ex.token}`;
  const started = Date.now();
  let res: Dispatcher.ResponseData;
  try {
    res = await request(url, {
      method,
      headers,
      body: ex.body === undefined ? undefined : JSON.stringify(ex.body),
      dispatcher: transport.dispatcher,
      headersTimeout: transport.timeoutMs,
      bodyTimeout: transport.timeoutMs,
      // undici's own timeouts run on a coarse (about one second) timer; push reasons
      // about how long a request can last, so the whole exchange is also cut exactly.
      signal: ex.signal ? AbortSignal.any([AbortSignal.timeout(transport.timeoutMs), ex.signal]) : AbortSignal.timeout(transport.timeoutMs),
    });
  } catch (cause) {
    budget.settle(slot);
    throw noResponseError(method, url, cause);
  }
  budget.settle(slot);
  const status = res.statusCode;
  const body = await readCapped(res, transport.maxResponseBytes).catch((cause: unknown) => {
    throw cutOffError(method, url, status, cause);
  });
  if (!Buffer.isBuffer(body)) throw tooLarge(`${method} ${url}: ${status}`, status, transport.maxResponseBytes, body.declared);
  // As undici's text(): UTF-8 (invalid bytes replaced), a byte order mark dropped.
  const text = body.toString('utf8').replace(/^\uFEFF/, '');
  transport.onResponse?.({ method, url, status, ms: Date.now() - started });
  const rate = readRateHeaders(res.headers, budget.perMinute);
  for (const note of rate.ignored) {
    const name = note.slice(0, note.indexOf(' '));
    transport.noted ??= new Set();
    if (transport.noted.has(name)) continue;
    transport.noted.add(name);
    transport.onNote?.(`${method} ${url}: ${status}: ${note}`);
  }
  // A 429's "remaining: 0" is what Retry-After already says, more precisely (onRateLimited below).
  budget.observe(rate.limit, status === 429 ? undefined : rate.remaining, slot.startedAt);
  if (status !== 429) budget.onAnswered();

  let json: unknown;
  let jsonError: unknown;
  if (text.trim().length > 0) {
    try {
      json = JSON.parse(text);
    } catch (err) {
      jsonError = err;
    }
  }
  const error = responseError({ method, url, status, headers: res.headers, text, json, jsonError });
  if (error instanceof RateLimitedError) budget.onRateLimited(error.retryAfter, slot.startedAt);
  if (error) throw error;
  return { status, json };
}

/**
 * `E_RESPONSE_TOO_LARGE` (with the status) naming the setting to raise.
 * @param where `METHOD URL: status`, for the message.
 * @param declared the `Content-Length` that refused the body; undefined when the bytes read did.
 */
function tooLarge(where: string, status: number, limit: number, declared: number | undefined): ChangelogSyncError {
  const mb = limit / 2 ** 20;
  const what = declared === undefined ? `more than ${limit} bytes read` : `Content-Length ${declared} bytes`;
  return new ChangelogSyncError('E_RESPONSE_TOO_LARGE', `${where}: the response body (${what}) is larger than the limit of ${Number.isInteger(mb) ? mb : mb.toFixed(2)} MB; reading stopped`, {
    // The status is kept: after a 2xx to a POST, the service has acted (push reconciles by the list).
    status,
    hint: 'raise the limit with `maxResponseMb` in changelog.config.json or CHANGELOG_MAX_RESPONSE_MB if this workspace really is that large; else the service (or a proxy in front of it) answered with something that is not the changelog',
  });
}
