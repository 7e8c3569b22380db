/**
 * The one error module (docs/architecture.md#conventions: errors). Every error the engine
 * throws is a {@link ChangelogSyncError} with a stable string `code`, which callers match on
 * (never the message or class). HTTP failures are translated at the client boundary
 * (`src/service/http-errors.ts`); the CLI maps codes once, at the top, to a message and an exit code.
 */

/** Stable error codes. Adding one is a minor change; renaming one is breaking. */
export type ErrorCode =
  /** 401/403: the token is missing, wrong, or for another workspace. */
  | 'E_AUTH'
  /** 429, or the daily budget is spent. */
  | 'E_RATE_LIMITED'
  /** 404. */
  | 'E_NOT_FOUND'
  /** 400/422 from the service, or a local file or argument that fails validation. */
  | 'E_VALIDATION'
  /** 5xx from the service. */
  | 'E_SERVICE'
  /** A body that is not the JSON the interface promises (a login page, malformed JSON, a wrong envelope). */
  | 'E_UNEXPECTED_RESPONSE'
  /** The connection failed or timed out before any response arrived. */
  | 'E_NETWORK'
  /** A response body larger than the configured limit (`maxResponseMb`); its reading was stopped. */
  | 'E_RESPONSE_TOO_LARGE'
  /** A remote entry whose content is too large to convert to Markdown (pull's conversion). */
  | 'E_ENTRY_TOO_LARGE'
  /** Configuration is missing or invalid. */
  | 'E_CONFIG'
  /** The content directory belongs to another workspace than the token. */
  | 'E_WORKSPACE_MISMATCH'
  /** Another process holds the content directory's lock. */
  | 'E_LOCKED'
  /** The push lease cannot be kept (docs/sync.md#the-push-lease): its remote cannot be read or written, or records a lifetime beyond the cap. Nothing was sent. */
  | 'E_LEASE'
  /** The run was told to stop (SIGTERM, SIGINT): what was in flight settled, nothing more was sent. */
  | 'E_INTERRUPTED'
  /** A local file cannot be read or parsed. */
  | 'E_FILE'
  /** `.changelog/` is in a state format this version does not know (or, for a dry run, cannot read unmigrated): refused before any write (`sync/store/state-format.ts`). */
  | 'E_STATE_FORMAT'
  /** The Eleventy build failed. */
  | 'E_BUILD'
  /** A git command failed (`commit-back`: a push that stayed rejected, a rebase that cannot apply). */
  | 'E_GIT'
  /** A file of the project (an entry, an image, a template) is a symbolic link that resolves outside the project. */
  | 'E_OUTSIDE_PROJECT'
  /** Wrong command-line usage. */
  | 'E_USAGE'
  /** `pull --prune` would remove every file (empty listing) or more than a tenth of the mirror; `--force` overrides. */
  | 'E_PRUNE_REFUSED'
  /** An unexpected error (a defect): never thrown, only reported by the CLI's top-level handler, exit code 1. */
  | 'E_INTERNAL';

/** Options common to every {@link ChangelogSyncError}. */
export interface ChangelogSyncErrorOptions {
  /** The HTTP status that caused the error, when there was one. */
  status?: number;
  /** The underlying error, kept for `--debug`. */
  cause?: unknown;
  /** A one-line hint that tells the user how to fix it. */
  hint?: string;
  /** The local file the error is about: absolute, or relative to the project (the CLI shows it relative to its working directory). */
  file?: string;
  /** 1-based line in {@link file}, when known. */
  line?: number;
  /** The field (frontmatter key, CSV column, request field) the error is about. */
  field?: string;
}

/**
 * What a command had done when it failed: the top-level handler prints `lines` before the
 * error and merges `data` into the `--json` document beside `error`.
 */
export interface DoneBeforeError {
  lines: string[];
  data: Record<string, unknown>;
}

/**
 * Base class of every error changelog-sync throws: match on `err.code` (`E_AUTH`, ...).
 */
export class ChangelogSyncError extends Error {
  override name = 'ChangelogSyncError';
  readonly code: ErrorCode;
  readonly status: number | undefined;
  readonly hint: string | undefined;
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly field: string | undefined;
  /** What the command had done before this error stopped it; set by the command that knows (see {@link DoneBeforeError}). */
  done: DoneBeforeError | undefined;

  constructor(code: ErrorCode, message: string, options: ChangelogSyncErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status;
    this.hint = options.hint;
    this.file = options.file;
    this.line = options.line;
    this.field = options.field;
  }
}

/** 401/403 from the service, or a token for another workspace. */
export class AuthError extends ChangelogSyncError {
  override name = 'AuthError';
  constructor(message: string, options: ChangelogSyncErrorOptions = {}) {
    super('E_AUTH', message, {
      hint: 'check CHANGELOG_TOKEN: it must be a workspace access token from the workspace settings',
      ...options,
    });
  }
}

/** 429 from the service (or a budget that is spent). */
export class RateLimitedError extends ChangelogSyncError {
  override name = 'RateLimitedError';
  /** Seconds to wait before the next request, from `Retry-After` when the service sent it. */
  readonly retryAfter: number | undefined;
  constructor(message: string, options: ChangelogSyncErrorOptions & { retryAfter?: number } = {}) {
    super('E_RATE_LIMITED', message, options);
    this.retryAfter = options.retryAfter;
  }
}

/** The requested URL, parsed, or `undefined`; hints read only its origin, host and path (no credentials). */
function parsedUrl(url: string | undefined): URL | undefined {
  return url && URL.canParse(url) ? new URL(url) : undefined;
}

/** The endpoint every command calls first (docs/service-interface.md#endpoints, endpoint 1). */
const WORKSPACE_PATH = '/api/workspace';

/** The fix for a 404 on `GET /api/workspace`, which every service has: `CHANGELOG_BASE_URL` is not the service root. */
export function notFoundHint(url: string | undefined): string | undefined {
  const u = parsedUrl(url);
  if (!u || !u.pathname.endsWith(WORKSPACE_PATH)) return undefined;
  const base = `${u.origin}${u.pathname.slice(0, -WORKSPACE_PATH.length)}`;
  return `CHANGELOG_BASE_URL must be the service root, not a page: ${base} has no ${WORKSPACE_PATH}${base === u.origin ? '' : ` (try ${u.origin})`}`;
}

/** 404 from the service. */
export class NotFoundError extends ChangelogSyncError {
  override name = 'NotFoundError';
  /** @param options.url the URL that answered 404 (for the fix, see {@link notFoundHint}). */
  constructor(message: string, options: ChangelogSyncErrorOptions & { url?: string } = {}) {
    super('E_NOT_FOUND', message, { hint: notFoundHint(options.url), ...options });
  }
}

/** One field problem, as the service (422 `errors`) or our own validation reports it. */
export interface FieldIssue {
  field: string;
  message: string;
}

/** 400/422 from the service, or local input that fails validation. */
export class ValidationError extends ChangelogSyncError {
  override name = 'ValidationError';
  /** Per-field problems (from the service's `errors` object, or from our schemas). */
  readonly issues: FieldIssue[];
  constructor(message: string, options: ChangelogSyncErrorOptions & { issues?: FieldIssue[] } = {}) {
    super('E_VALIDATION', message, options);
    this.issues = options.issues ?? [];
  }
}

/** 5xx from the service. */
export class ServiceError extends ChangelogSyncError {
  override name = 'ServiceError';
  constructor(message: string, options: ChangelogSyncErrorOptions = {}) {
    super('E_SERVICE', message, options);
  }
}

/** A response that is not the JSON envelope the interface promises. */
export class UnexpectedResponseError extends ChangelogSyncError {
  override name = 'UnexpectedResponseError';
  constructor(message: string, options: ChangelogSyncErrorOptions = {}) {
    super('E_UNEXPECTED_RESPONSE', message, {
      hint: 'check CHANGELOG_BASE_URL: it must be the service root (the client adds /api/...)',
      ...options,
    });
  }
}

/** The system error codes of a failed connection: Node's own, or of each address tried (an `AggregateError`). */
function causeCodes(cause: unknown, depth = 0): string[] {
  if (!cause || typeof cause !== 'object' || depth > 4) return [];
  const c = cause as { code?: unknown; errors?: unknown; cause?: unknown };
  return [
    ...(typeof c.code === 'string' ? [c.code] : []),
    ...(Array.isArray(c.errors) ? c.errors.flatMap((e) => causeCodes(e, depth + 1)) : []),
    ...causeCodes(c.cause, depth + 1),
  ];
}

/**
 * The fix for a connection refused or an unknown host: `CHANGELOG_BASE_URL` names the wrong
 * place (or the service is down).
 * @param cause the connection's error (undici's, with a Node system `code`).
 */
export function networkHint(cause: unknown, url: string | undefined): string | undefined {
  const codes = causeCodes(cause);
  const u = parsedUrl(url);
  const where = u ? ` (${u.origin})` : '';
  if (codes.includes('ENOTFOUND') || codes.includes('EAI_AGAIN')) {
    return `check CHANGELOG_BASE_URL${where}: its host${u ? ` "${u.hostname}"` : ''} is not known; is it spelled right, and is this machine online?`;
  }
  if (codes.includes('ECONNREFUSED')) {
    return `check CHANGELOG_BASE_URL${where}: nothing accepts connections there; are the host and port right, and is the service up?`;
  }
  return undefined;
}

/** The request never got a response (connection refused, reset, timed out). */
export class NetworkError extends ChangelogSyncError {
  override name = 'NetworkError';
  /** @param options.url the URL requested (for the fix, see {@link networkHint}). */
  constructor(message: string, options: ChangelogSyncErrorOptions & { url?: string } = {}) {
    super('E_NETWORK', message, { hint: networkHint(options.cause, options.url), ...options });
  }
}

/** True when `err` is a {@link ChangelogSyncError} with the given code. */
export function isErrorCode(err: unknown, code: ErrorCode): err is ChangelogSyncError {
  return err instanceof ChangelogSyncError && err.code === code;
}
