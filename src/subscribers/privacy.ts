/**
 * Subscriber addresses out of CI logs: in GitHub Actions the job log is readable by everyone who
 * sees the Actions tab, so every address printed there is masked (`a***@example.com`).
 */
import { ChangelogSyncError } from '../core/errors.js';

/**
 * Masks one address (or any cell that was meant to be one): its first character, `***`,
 * and the domain from the last `@`. A value without `@` keeps only its first character.
 */
export function maskEmail(value: string): string {
  const first = Array.from(value)[0] ?? '';
  const at = value.lastIndexOf('@');
  return `${first}***${at >= 0 ? value.slice(at) : ''}`;
}

/** Anything that looks like `local@domain` inside a longer text. */
const ADDRESS_IN_TEXT = /[^\s@<>()[\]{}"'`,;:]+@[^\s@<>()[\]{}"'`,;:]+/gu;

/** Masks every address-like token in a text (the safety net over whole messages). */
export function maskEmailsIn(text: string): string {
  return text.replace(ADDRESS_IN_TEXT, (m) => maskEmail(m));
}

/** Masks every address-like token in every string of a JSON-able value (as JSON gives it back). */
export function maskEmailsDeep<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), (_key, v: unknown) => (typeof v === 'string' ? maskEmailsIn(v) : v)) as T;
}

/** How a command shows addresses: as they are, or masked. Its functions need no `this`. */
export interface EmailDisplay {
  /** True when addresses are masked. */
  readonly masked: boolean;
  /** One address (or address-like cell). */
  email: (value: string) => string;
  /** A whole human-readable text. */
  text: (value: string) => string;
  /** A JSON-able result. */
  data: <T>(value: T) => T;
}

/**
 * The display for a run: masked in GitHub Actions (the reporter knows: `Reporter.actions`),
 * plain elsewhere.
 * @param masked true to mask.
 */
export function emailDisplay(masked: boolean): EmailDisplay {
  if (!masked) return { masked: false, email: (v) => v, text: (v) => v, data: (v) => v };
  return { masked: true, email: maskEmail, text: maskEmailsIn, data: maskEmailsDeep };
}

/**
 * Runs a command body with addresses masked in the message and hint of every
 * {@link ChangelogSyncError} it throws, when the display masks (GitHub Actions).
 */
export async function withMaskedErrors<T>(display: EmailDisplay, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (err) {
    if (display.masked && err instanceof ChangelogSyncError) {
      err.message = display.text(err.message);
      Object.assign(err, { hint: err.hint === undefined ? undefined : display.text(err.hint) });
    }
    throw err;
  }
}
