/**
 * Subscriber fields from a CSV file or the command line, validated and normalised: addresses
 * (validator's `isEmail`, trimmed, domain lower-cased) and dates (ISO 8601 to endpoint 8's
 * `YYYY-MM-DD`). A bad row's problem is returned, never thrown, so it hides no other; only a
 * bad command-line option throws.
 */
import validator from 'validator';
import { ChangelogSyncError } from '../core/errors.js';

/** An email cell, normalised, or why it cannot be used. */
export type EmailCheck = { ok: true; email: string } | { ok: false; reason: 'missing-email' | 'invalid-email' };

/**
 * Trims an address and lower-cases its domain (the local part's case is the receiving server's),
 * then validates it with validator's `isEmail` (no display names or IP domains, a TLD required).
 */
export function normalizeEmail(raw: string): EmailCheck {
  const trimmed = raw.trim();
  if (trimmed === '') return { ok: false, reason: 'missing-email' };
  const at = trimmed.lastIndexOf('@');
  const email = at < 0 ? trimmed : `${trimmed.slice(0, at)}@${trimmed.slice(at + 1).toLowerCase()}`;
  return validator.isEmail(email) ? { ok: true, email } : { ok: false, reason: 'invalid-email' };
}

/** Two addresses are one subscriber when equal lower-cased, as mail providers and the service's duplicate check see them. */
export function emailKey(email: string): string {
  return email.toLowerCase();
}

/** Today's date in UTC as `YYYY-MM-DD` (the service's dates are UTC). @param now ms since the epoch. */
export function utcToday(now = Date.now()): string {
  return new Date(now).toISOString().slice(0, 10);
}

/** A date cell, normalised to `YYYY-MM-DD`, or what is wrong with it. */
export type DateCheck = { ok: true; date: string } | { ok: false; message: string };

const CALENDAR_PREFIX = /^\d{4}-\d{2}-\d{2}/;
const TIME_WITH_OFFSET = /[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s*(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

/**
 * Normalises a verification date to `YYYY-MM-DD` (docs/service-interface.md#endpoints, 8, rule 4):
 * ISO 8601 dates, alone or with a time after `T` or a space, as the service and common exports
 * write them; an offset is converted to the UTC date, no offset keeps the date as written.
 * Refused: days that do not exist, ambiguous orders (`06/05/2024`), words, dates after `today`.
 * @param today `YYYY-MM-DD` in UTC.
 */
export function normalizeDate(raw: string, today: string): DateCheck {
  const value = raw.trim();
  if (!CALENDAR_PREFIX.test(value) || !validator.isISO8601(value, { strict: true })) {
    return { ok: false, message: `${JSON.stringify(value)} is not a date in the form YYYY-MM-DD (ISO 8601)` };
  }
  let date = value.slice(0, 10);
  if (TIME_WITH_OFFSET.test(value)) {
    const ms = Date.parse(value.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
    if (Number.isNaN(ms)) return { ok: false, message: `${JSON.stringify(value)} is not a date and time this tool can read` };
    date = new Date(ms).toISOString().slice(0, 10);
  }
  if (date > today) return { ok: false, message: `${JSON.stringify(value)} is in the future (today is ${today} UTC)` };
  return { ok: true, date };
}

/**
 * Parses `--verified-at today|YYYY-MM-DD` into the date sent as `verified_at`.
 * @param today `YYYY-MM-DD` in UTC.
 * @throws {ChangelogSyncError} `E_USAGE` for anything but `today` or a past `YYYY-MM-DD`.
 */
export function parseVerifiedAtOption(value: string, today: string): string {
  const v = value.trim();
  if (v.toLowerCase() === 'today') return today;
  const check = /^\d{4}-\d{2}-\d{2}$/.test(v) ? normalizeDate(v, today) : { ok: false as const, message: `${JSON.stringify(v)} is not "today" or a date YYYY-MM-DD` };
  if (!check.ok) {
    throw new ChangelogSyncError('E_USAGE', `--verified-at: ${check.message}`, {
      field: '--verified-at',
      hint: 'pass --verified-at today, or the date (YYYY-MM-DD) on which these people confirmed their subscription',
    });
  }
  return check.date;
}
