// Slugs (src/entry/slug.ts): the one derived from a title, and which slugs are safe in a URL.
import { describe, expect, it } from 'vitest';
import { isSafeSlug, slugify } from '../../src/entry/slug.js';

describe('slugify', () => {
  it('gives what @sindresorhus/slugify gives (its fast path for strings that already are slugs included)', async () => {
    const lib = (await import('@sindresorhus/slugify')).default;
    const samples = ['new-export-api', 'a', 'a-b-c', 'x1-2y', 'abc--def', '-a', 'a-', 'a_b', 'Abc', '123', 'a-1-', 'Dark mode 🌙', 'Über & Co', 'v2.4.1', 'CON', '../../etc/x', 'user_id', 'ÅÄÖ-åäö'];
    for (const s of samples) expect(slugify(s), s).toBe(lib(s, { decamelize: false }) || 'entry');
  });

  it('derives ASCII slugs', () => {
    expect(slugify('Dark mode is here 🌙')).toBe('dark-mode-is-here');
    expect(slugify('Über & Co: v2.4')).toBe('ueber-and-co-v2-4');
  });
});

describe('isSafeSlug', () => {
  it('takes ASCII letters, digits, - and _ between a letter or digit at each end, at most 255', () => {
    expect(['a', 'user_id', 'New-Export-API', '2026-recap', 'a'.repeat(255)].map(isSafeSlug)).toEqual([true, true, true, true, true]);
    expect(['', '-a', 'a-', '_a', 'a/b', '../x', 'a b', 'dark-🌙', 'a'.repeat(256)].map(isSafeSlug)).toEqual(Array(9).fill(false));
  });
});
