/**
 * One HTTP exchange with the service (docs/service-interface.md#authentication, #limits): JSON
 * headers and the bearer token; a slot of the {@link RateBudget}, corrected by the response's
 * bounded `x-ratelimit-*` headers (`rate-headers.ts`; a 429 blocks the budget until
 * `Retry-After`); the body read up to a cap; the status judged by `http-errors.ts`. Retrying is
 * the caller's (`retry.ts`).
 */
import { request, type Dispatcher } from 'undici';
import { ChangelogSyncError, RateLimitedError } from '../core/errors.js';
import { headerNumber } from './headers.js';
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
export interface RawResponse {
  status: number;
  url: string;
  /** Parsed JSON, or `undefined` for an empty body. */
  json: unknown;
}

/** The setting that raises the cap, named in the error. */
const MAX_RESPONSE_SETTING = '`maxResponseMb` in changelog.config.json or CHANGELOG_MAX_RESPONSE_MB';

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
  let text: string;
  try {
    text = await readBodyCapped(res, transport.maxResponseBytes, `${method} ${url}: ${status}`);
  } catch (cause) {
    if (cause instanceof ChangelogSyncError) throw cause;
    throw cutOffError(method, url, status, cause);
  }
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
  return { status, url, json };
}

/**
 * The body as text, read as a stream and stopped (connection destroyed) once larger than
 * `limit` bytes; a declared `Content-Length` above it is refused unread.
 *
 * @param where `METHOD URL: status`, for the message.
 * @throws {ChangelogSyncError} `E_RESPONSE_TOO_LARGE` (with the status) naming the setting to raise.
 * @throws the stream's error when the body is cut off.
 */
async function readBodyCapped(res: Pick<Dispatcher.ResponseData, 'body' | 'headers' | 'statusCode'>, limit: number, where: string): Promise<string> {
  const { body, headers } = res;
  const tooLarge = (what: string) => {
    body.destroy();
    const mb = limit / 2 ** 20;
    return new ChangelogSyncError('E_RESPONSE_TOO_LARGE', `${where}: the response ${what} is larger than the limit of ${Number.isInteger(mb) ? mb : mb.toFixed(2)} MB; reading stopped`, {
      // The status is kept: after a 2xx to a POST, the service has acted (push reconciles by the list).
      status: res.statusCode,
      hint: `raise the limit with ${MAX_RESPONSE_SETTING} if this workspace really is that large; else the service (or a proxy in front of it) answered with something that is not the changelog`,
    });
  };
  const declared = headerNumber(headers, 'content-length');
  if (declared !== undefined && declared > limit) throw tooLarge(`body (Content-Length ${declared} bytes)`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(`body (more than ${limit} bytes read)`);
    chunks.push(chunk);
  }
  // As undici's text(): UTF-8 (invalid bytes replaced), a byte order mark dropped.
  const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
