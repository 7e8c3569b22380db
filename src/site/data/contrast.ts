/**
 * WCAG 2 contrast of two sRGB colours (https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio),
 * for the colours a site takes from data: a tag's `bg_color`/`text_color` from tags.json.
 */

/** The least contrast of normal text under WCAG 2 level AA (1.4.3). */
export const AA_CONTRAST = 4.5;

/** Relative luminance of a `#rgb` or `#rrggbb` colour. */
function luminance(hex: string): number {
  let h = hex.trim().replace(/^#/, '');
  if (h.length === 3) h = [...h].map((c) => c + c).join('');
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(h.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/**
 * The contrast ratio of two hex colours, 1 to 21 (the same either way round).
 * @param a a `#rgb` or `#rrggbb` colour.
 * @param b another.
 */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}
