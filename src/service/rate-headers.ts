/**
 * The rate-limit headers of a response, bounded before the {@link RateBudget} believes them
 * (docs/service-interface.md#limits). A value the service cannot mean (two billion a minute, a
 * negative or fractional count, more remaining than the limit) is ignored with a note: the
 * window's size and memory never follow a header.
 */
import { headerString, type ResponseHeaders } from './responses.js';

/** The largest `x-ratelimit-limit` believed: above it, a broken header, not a faster service. */
export const MAX_RATE_LIMIT = 10_000;

/** The rate-limit headers that passed, and a note for each that did not. */
export interface RateHeaders {
  /** `x-ratelimit-limit`: an integer from 1 to {@link MAX_RATE_LIMIT}. */
  limit?: number;
  /** `x-ratelimit-remaining`: an integer from 0 to the limit in force. */
  remaining?: number;
  /** One line per header ignored: its name, its value (quoted, cut at 40 characters) and why. */
  ignored: string[];
}

/** A header's value as a non-negative integer (digits only), or `undefined`. */
function wholeNumber(value: string): number | undefined {
  const s = value.trim();
  return /^\d{1,15}$/.test(s) ? Number(s) : undefined;
}

/** The value as the note quotes it: JSON-quoted, at most 40 characters. */
function quoted(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
}

/**
 * Reads `x-ratelimit-limit` and `x-ratelimit-remaining` and keeps the sane ones; `remaining` is
 * checked against the response's limit when that passed, else against `currentLimit`.
 * @returns the values that passed, and a note for each header that did not.
 */
export function readRateHeaders(headers: ResponseHeaders, currentLimit: number): RateHeaders {
  const out: RateHeaders = { ignored: [] };
  const rawLimit = headerString(headers, 'x-ratelimit-limit');
  if (rawLimit !== undefined && rawLimit.trim() !== '') {
    const n = wholeNumber(rawLimit);
    if (n !== undefined && n >= 1 && n <= MAX_RATE_LIMIT) out.limit = n;
    else out.ignored.push(`x-ratelimit-limit ${quoted(rawLimit)} is not a whole number from 1 to ${MAX_RATE_LIMIT.toLocaleString('en-US')}; ignored (the limit stays ${currentLimit} a window)`);
  }
  const rawRemaining = headerString(headers, 'x-ratelimit-remaining');
  if (rawRemaining !== undefined && rawRemaining.trim() !== '') {
    const limit = out.limit ?? currentLimit;
    const n = wholeNumber(rawRemaining);
    if (n !== undefined && n <= limit) out.remaining = n;
    else out.ignored.push(`x-ratelimit-remaining ${quoted(rawRemaining)} is not a whole number from 0 to the limit (${limit}); ignored`);
  }
  return out;
}
