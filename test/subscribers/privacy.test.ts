// Masking addresses for CI logs.
import { describe, expect, it } from 'vitest';
import { emailDisplay, maskEmail, maskEmailsDeep, maskEmailsIn } from '../../src/subscribers/privacy.js';

describe('masking', () => {
  it('keeps the first character and the domain', () => {
    expect(maskEmail('alice@example.com')).toBe('a***@example.com');
    expect(maskEmail('Ünal.k@example.org')).toBe('Ü***@example.org');
    expect(maskEmail('not-an-email')).toBe('n***');
    expect(maskEmail('')).toBe('***');
  });

  it('masks every address in a text and is idempotent', () => {
    const text = 'line 2  alice@example.com: the same address as "Bob.Lee@example.org" (bob@x)';
    const masked = maskEmailsIn(text);
    expect(masked).toBe('line 2  a***@example.com: the same address as "B***@example.org" (b***@x)');
    expect(maskEmailsIn(masked)).toBe(masked);
  });

  it('masks every string of a JSON value', () => {
    expect(maskEmailsDeep({ n: 1, list: [{ email: 'ann@example.com', name: 'Ann' }], note: 'to bob@example.org' })).toEqual({
      n: 1,
      list: [{ email: 'a***@example.com', name: 'Ann' }],
      note: 'to b***@example.org',
    });
  });

  it('a display masks only when asked', () => {
    expect(emailDisplay(false).email('ann@example.com')).toBe('ann@example.com');
    expect(emailDisplay(false).data({ email: 'ann@example.com' })).toEqual({ email: 'ann@example.com' });
    const ci = emailDisplay(true);
    expect(ci.masked).toBe(true);
    expect(ci.email('ann@example.com')).toBe('a***@example.com');
    expect(ci.text('x ann@example.com y')).toBe('x a***@example.com y');
  });
});
