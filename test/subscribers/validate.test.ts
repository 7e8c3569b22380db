// Addresses and verification dates: normalised, or refused with a reason.
import { describe, expect, it } from 'vitest';
import { emailKey, normalizeDate, normalizeEmail, parseVerifiedAtOption, utcToday } from '../../src/subscribers/validate.js';
import { textContaining } from '../helpers/matchers.js';

describe('normalizeEmail', () => {
  it('trims and lower-cases the domain only', () => {
    expect(normalizeEmail('  Jose.Garcia@Example.ORG \t')).toEqual({ ok: true, email: 'Jose.Garcia@example.org' });
    expect(normalizeEmail('\u00a0ann@example.com\u00a0')).toEqual({ ok: true, email: 'ann@example.com' });
  });

  it.each([
    ['', 'missing-email'],
    ['   ', 'missing-email'],
    ['not-an-email', 'invalid-email'],
    ['a@b@example.com', 'invalid-email'],
    ['ann@localhost', 'invalid-email'],
    ['Ann <ann@example.com>', 'invalid-email'],
    ['ann..lee@example.com', 'invalid-email'],
  ])('%j is refused: %s', (raw, reason) => expect(normalizeEmail(raw)).toEqual({ ok: false, reason }));

  it('keys addresses case-insensitively', () => {
    expect(emailKey('Ann.Lee@example.com')).toBe(emailKey('ann.lee@EXAMPLE.com'.toLowerCase()));
  });
});

describe('normalizeDate', () => {
  const today = '2026-06-15';
  it.each([
    ['2024-05-06', '2024-05-06'],
    [' 2024-05-06 ', '2024-05-06'],
    ['2024-05-06 10:22:11', '2024-05-06'],
    ['2024-05-06T10:22:11Z', '2024-05-06'],
    ['2024-05-06T10:22:11.123456Z', '2024-05-06'],
    ['2024-05-06T23:30:00-05:00', '2024-05-07'], // converted to the UTC date
    ['2024-05-06T23:30:00-0500', '2024-05-07'],
    ['2024-05-07T01:00:00+02:00', '2024-05-06'],
    ['2024-05-06T23:30:00', '2024-05-06'], // no offset: the date as written
    ['2024-02-29', '2024-02-29'],
    ['2026-06-15', '2026-06-15'],
  ])('%j -> %s', (raw, date) => expect(normalizeDate(raw, today)).toEqual({ ok: true, date }));

  it.each(['2023-02-29', '2024-02-30', '2024-13-01', '31/02/2024', '06/05/2024', '2024/05/06', 'yesterday', '20240506', '2024-W10-1', ''])(
    '%j is refused',
    (raw) => expect(normalizeDate(raw, today)).toMatchObject({ ok: false, message: textContaining('is not a date') }),
  );

  it('refuses a date after today', () => {
    expect(normalizeDate('2026-06-16', today)).toEqual({ ok: false, message: '"2026-06-16" is in the future (today is 2026-06-15 UTC)' });
  });
});

describe('--verified-at', () => {
  it('takes today or a past date', () => {
    expect(parseVerifiedAtOption('today', '2026-06-15')).toBe('2026-06-15');
    expect(parseVerifiedAtOption('TODAY', '2026-06-15')).toBe('2026-06-15');
    expect(parseVerifiedAtOption('2025-01-31', '2026-06-15')).toBe('2025-01-31');
    expect(utcToday(Date.UTC(2026, 0, 2, 23, 59))).toBe('2026-01-02');
  });

  it.each(['yesterday', '2025-02-30', '2027-01-01', '2025-01-01T00:00:00Z'])('refuses %j as a usage error', (value) => {
    expect(() => parseVerifiedAtOption(value, '2026-06-15')).toThrow(expect.objectContaining({ code: 'E_USAGE', field: '--verified-at' }));
  });
});
