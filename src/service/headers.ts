/**
 * Reading the response headers undici hands over (a header sent twice arrives as an
 * array; the first value counts).
 */
/** Response headers as undici gives them. */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** A header's value, the first one when it was sent more than once. */
export function headerString(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A header's value as a finite number, or `undefined` when absent, empty or not a number. */
export function headerNumber(headers: ResponseHeaders, name: string): number | undefined {
  const s = headerString(headers, name);
  if (s === undefined || s.trim() === '') return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}
