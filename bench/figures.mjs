// Small statistics of the benchmarks' figures.

/** The median of some numbers (the mean of the two middle ones for an even count). */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : Math.round((s[mid - 1] + s[mid]) / 2);
}

/** a / b, to three decimals. */
export const ratio = (a, b) => Math.round((a / b) * 1000) / 1000;
