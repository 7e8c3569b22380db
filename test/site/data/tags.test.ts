// Tag chip colours from tags.json (tagStyle in src/site/data/tags.ts, contrast.ts): kept only
// as a pair that reaches WCAG AA; the stylesheet swaps the pair in the dark scheme.
import { describe, expect, it } from 'vitest';
import { contrastRatio } from '../../../src/site/data/contrast.js';
import { tagStyle } from '../../../src/site/data/tags.js';

describe('tag colours', () => {
  it('measures WCAG contrast (the known extremes and a known pair)', () => {
    expect(contrastRatio('#000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#777777', '#777')).toBe(1);
    expect(contrastRatio('#166534', '#dcfce7')).toBeCloseTo(contrastRatio('#dcfce7', '#166534'), 10);
    expect(contrastRatio('#767676', '#ffffff')).toBeGreaterThan(4.5); // the lightest grey that passes on white
    expect(contrastRatio('#777777', '#ffffff')).toBeLessThan(4.5);
  });

  it('keeps a readable pair, drops a faint one or a half', () => {
    expect(tagStyle({ bg_color: '#dcfce7', text_color: '#166534' })).toBe('--tag-bg: #dcfce7; --tag-fg: #166534');
    expect(tagStyle({ bg_color: '#fef9c3', text_color: '#facc15' })).toBe('');
    expect(tagStyle({ bg_color: '#dcfce7', text_color: null })).toBe('');
    expect(tagStyle({ bg_color: null, text_color: '#166534' })).toBe('');
  });
});
