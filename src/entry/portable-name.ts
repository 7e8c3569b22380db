/**
 * Portable file names (docs/entry-file.md#portable-file-names): a name pull and push write is one
 * file on Linux, macOS (case-insensitive, normalising) and Windows (also reserved names and
 * characters). Two names are one file somewhere when their {@link nameKey}s are equal; a name
 * is portable when {@link portableNameProblem} finds nothing.
 */

/** Longest portable file name, in UTF-8 bytes (eCryptfs allows 143; paths stay short on Windows). */
export const MAX_NAME_BYTES = 100;

/** Characters Windows refuses in a file name, and every control character. */
// eslint-disable-next-line no-control-regex -- the control characters are the point
const INVALID_CHARS = /[<>:"/\\|?*\u0000-\u001f\u007f]/;

/** Names Windows reserves for devices, with any extension (`con`, `con.md`, `COM1.txt`). */
const RESERVED = /^(?:con|prn|aux|nul|com[1-9¹²³]|lpt[1-9¹²³])$/i;

/**
 * A name as a case-folding, normalising file system sees it: NFC, case folded (upper then lower,
 * so `ß`/`SS` and the Kelvin sign fold too), trailing dots and spaces dropped. Two names with one
 * key are one file on macOS or Windows: never both written.
 */
export function nameKey(name: string): string {
  // Printable ASCII (every name pull writes): lower case is the whole fold.
  const folded = PRINTABLE_ASCII.test(name) ? name.toLowerCase() : name.normalize('NFC').toUpperCase().toLowerCase().normalize('NFC');
  // Without the trailing dots and spaces Windows drops (names are short: the pattern's backtracking stays cheap).
  return folded.replace(/[. ]+$/, '');
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * Why a name (one path segment) is not portable, or undefined: empty, over {@link MAX_NAME_BYTES}
 * UTF-8 bytes, a character Windows refuses or a control character, a trailing dot or space, or a
 * reserved name (`con`, `nul`, `com1`, ... with any extension).
 */
export function portableNameProblem(name: string): string | undefined {
  if (name === '' || name === '.' || name === '..') return 'is empty or a folder reference';
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes > MAX_NAME_BYTES) return `is ${bytes} bytes long (at most ${MAX_NAME_BYTES})`;
  const bad = INVALID_CHARS.exec(name);
  if (bad) return `contains ${JSON.stringify(bad[0])}, which Windows does not allow in a file name`;
  if (/[. ]$/.test(name)) return 'ends with a dot or a space, which Windows drops';
  const stem = name.split('.')[0]!.replace(/ +$/, '');
  if (RESERVED.test(stem)) return `is a device name Windows reserves (${stem})`;
  return undefined;
}

/** Names (or paths) by {@link nameKey}, each with its owners (an identifier, or `''` for no known entry). */
export class FoldedNames {
  /** Key -> its owners. */
  private readonly owners = new Map<string, Set<string>>();

  /** Records that `owner` holds `name`. */
  add(name: string, owner: string): void {
    const key = nameKey(name);
    const had = this.owners.get(key);
    if (had) had.add(owner);
    else this.owners.set(key, new Set([owner]));
  }

  /** True when no one but `owner` holds `name`, or a name that is the same file somewhere. */
  freeFor(name: string, owner: string): boolean {
    const had = this.owners.get(nameKey(name));
    return had === undefined || [...had].every((o) => o === owner);
  }
}
