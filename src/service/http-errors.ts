/**
 * HTTP failures translated at the API boundary into the error module
 * (docs/service-interface.md#errors). Every message starts with the method, the URL (without
 * credentials) and, once there is one, the status; the token never appears.
 */
import {
  AuthError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  ServiceError,
  UnexpectedResponseError,
  ValidationError,
  type ChangelogSyncError,
  type FieldIssue,
} from '../core/errors.js';
import { headerString, type ResponseHeaders } from './responses.js';

/** A response as read off the wire, before its status is judged. */
export interface ReadResponse {
  method: string;
  /** The URL requested (without credentials). */
  url: string;
  status: number;
  headers: ResponseHeaders;
  /** The body as text (empty for none). */
  text: string;
  /** The parsed body, or `undefined` when it is empty or not JSON. */
  json: unknown;
  /** Why the body did not parse as JSON, when it did not. */
  jsonError: unknown;
}

/**
 * The error a response stands for, or `undefined` for a 2xx with a JSON (or empty) body:
 * `E_RATE_LIMITED` (429, with `Retry-After` in seconds), `E_UNEXPECTED_RESPONSE` (3xx, another
 * non-2xx, a 2xx body that is not JSON), `E_AUTH` (401/403), `E_NOT_FOUND` (404),
 * `E_VALIDATION` (400/422, with the field errors), `E_SERVICE` (5xx).
 */
export function responseError(res: ReadResponse): ChangelogSyncError | undefined {
  const { status, json } = res;
  const message = json && typeof json === 'object' && 'message' in json ? String(json.message) : undefined;
  const said = message ? `: ${message}` : '';
  const where = `${res.method} ${res.url}: ${status}`;

  if (status === 429) {
    const retryAfter = parseRetryAfter(headerString(res.headers, 'retry-after'));
    return new RateLimitedError(`${where} Too Many Requests${retryAfter !== undefined ? ` (retry after ${retryAfter}s)` : ''}`, {
      status,
      retryAfter,
      hint: 'the workspace allows 60 requests a minute and 1,440 a day',
    });
  }
  if (status >= 300 && status < 400) {
    const location = headerString(res.headers, 'location');
    return new UnexpectedResponseError(`${where} redirect${location ? ` to ${location}` : ''} instead of JSON`, {
      status,
      hint: 'a redirect to a login page means the token was not accepted; check CHANGELOG_BASE_URL and CHANGELOG_TOKEN',
    });
  }
  if (status === 401 || status === 403) {
    return new AuthError(`${where} ${status === 401 ? 'Unauthorized' : 'Forbidden'}${said}`, { status });
  }
  if (status === 404) return new NotFoundError(`${where} Not Found${said}`, { status, url: res.url });
  if (status === 400 || status === 422) {
    const issues = fieldIssues(json);
    const detail = issues.length > 0 ? issues.map((i) => `${i.field}: ${i.message}`).join('; ') : message;
    return new ValidationError(`${where} the service rejected the request${detail ? `: ${detail}` : ''}`, { status, issues });
  }
  if (status >= 500) return new ServiceError(`${where} service error${said}`, { status });
  if (status < 200 || status >= 300) return new UnexpectedResponseError(`${where} unexpected status${said}`, { status });
  if (res.jsonError !== undefined) {
    const kind = /^\s*</.test(res.text) ? 'an HTML page (a login page?)' : 'malformed JSON';
    return new UnexpectedResponseError(`${where} returned ${kind} instead of JSON`, { status, cause: res.jsonError });
  }
  return undefined;
}

/**
 * The request got no response (refused, reset, timed out): `E_NETWORK`, with the fix for a
 * wrong host or port and the connection's error as `cause`.
 */
export function noResponseError(method: string, url: string, cause: unknown): NetworkError {
  return new NetworkError(`${method} ${url}: no response (${describeCause(cause)})`, { cause, url });
}

/** The response's body stopped before its end: `E_NETWORK` with the status that did arrive. */
export function cutOffError(method: string, url: string, status: number, cause: unknown): NetworkError {
  return new NetworkError(`${method} ${url}: ${status} but the response body was cut off (${describeCause(cause)})`, { cause, status });
}

/**
 * `Retry-After` as seconds (delta-seconds or an HTTP date measured from `now`, RFC 9110 §10.2.3),
 * never negative; `undefined` when absent or unreadable.
 * @param now ms since the epoch.
 */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  if (Number.isFinite(n)) return Math.max(0, n);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** Field errors of a Laravel-style 422 body: `{message, errors: {field: [messages]}}`. */
function fieldIssues(json: unknown): FieldIssue[] {
  if (!json || typeof json !== 'object' || !('errors' in json)) return [];
  const errors = json.errors;
  if (!errors || typeof errors !== 'object') return [];
  return Object.entries(errors as Record<string, unknown>).flatMap(([field, msgs]) =>
    (Array.isArray(msgs) ? msgs : [msgs]).map((m) => ({ field, message: String(m) })),
  );
}

/** A connection error as `code: message` (undici's and Node's errors carry both). */
function describeCause(cause: unknown): string {
  if (cause && typeof cause === 'object') {
    const { code, message } = cause as { code?: unknown; message?: unknown };
    return [code, message].filter((x) => typeof x === 'string' && x.length > 0).join(': ') || 'unknown error';
  }
  return String(cause);
}
