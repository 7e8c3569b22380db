/**
 * The typed client of the changelog service: one method per endpoint of
 * service-spec.md ("Endpoints", 1-9).
 *
 * - Every request sends `Accept` and `Content-Type: application/json` and, except the
 *   public latest-entry operation, `Authorization: Bearer <token>` ("Authentication").
 * - Every request passes through one {@link RateBudget}; `x-ratelimit-*` headers of every
 *   response correct it ("Limits").
 * - HTTP failures are translated here, at the boundary, into the error module:
 *   401/403 -> `E_AUTH`, 404 -> `E_NOT_FOUND`, 400/422 -> `E_VALIDATION`,
 *   429 -> `E_RATE_LIMITED`, 5xx -> `E_SERVICE`, a non-JSON or malformed body ->
 *   `E_UNEXPECTED_RESPONSE`, no response -> `E_NETWORK`. Messages name the method, the
 *   URL and the status; the token never appears in any of them.
 * - GETs retry transient failures (no response, 5xx) with exponential backoff. POST and
 *   DELETE are never retried blindly: the service may have acted before the failure.
 *   A 429 is retried for every method (the service refused it, so nothing happened),
 *   after `Retry-After`, a bounded number of times.
 *
 * @module
 */
import { Agent, request, type Dispatcher } from 'undici';
import type { z } from 'zod';
import {
  AuthError,
  ChangelogSyncError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  ServiceError,
  UnexpectedResponseError,
  ValidationError,
  type FieldIssue,
} from '../errors.js';
import { DEFAULT_MAX_RESPONSE_MB } from '../config.js';
import { RateBudget } from './rate-budget.js';
import {
  SUPPORTED_VERSION,
  envelopeSchema,
  latestEntrySchema,
  remoteEntrySchema,
  subscriberSchema,
  tagSchema,
  workspaceSchema,
  type CreateEntryInput,
  type LatestEntry,
  type NewSubscriber,
  type RemoteEntry,
  type Subscriber,
  type Tag,
  type Workspace,
} from './schemas.js';

/** Options of {@link ChangelogClient}. */
export interface ClientOptions {
  /** Service root, e.g. `https://changelog.example.com` (paths `/api/...` are appended). */
  baseUrl: string;
  /** Workspace access token. Needed for every endpoint but the public latest entry. */
  token?: string | undefined;
  /** The rate gate shared by every request of this process. Default: a fresh one. */
  budget?: RateBudget;
  /** undici dispatcher (an `Agent`, or a `MockAgent` in tests). Default: a keep-alive Agent. */
  dispatcher?: Dispatcher;
  /** Retries of a GET after a transient failure. Default 3. */
  getRetries?: number;
  /** Retries of any request after a 429. Default 5. */
  rateLimitRetries?: number;
  /** First backoff delay in ms, doubled per retry (with jitter). Default 250. */
  backoffMs?: number;
  /** Timeout in ms for headers and for the body. Default 30,000. */
  timeoutMs?: number;
  /**
   * Largest response body read, in bytes; a larger one fails with `E_RESPONSE_TOO_LARGE`
   * as soon as its `Content-Length` or the bytes read so far cross it. Default
   * {@link DEFAULT_MAX_RESPONSE_MB} MB.
   */
  maxResponseBytes?: number;
  /** Sleep used for backoff; default a real timer (tests pass a fake one). */
  sleep?: (ms: number) => Promise<void>;
  /** Receives warnings (an unknown interface version, ...). Default: ignored. */
  onWarning?: (message: string) => void;
  /** Receives every response's method, path, status and duration (for `--verbose`). */
  onResponse?: (info: { method: string; url: string; status: number; ms: number }) => void;
}

/** What `POST /api/entry` gave back (the spec leaves its response body open). */
export interface CreateEntryResult {
  /** The created entry's identifier, when the response carried one. */
  identifier?: string;
  /** The created entry, when the response carried it whole. */
  entry?: RemoteEntry;
  /** HTTP status of the response (200 or 201). */
  status: number;
}

type Method = 'GET' | 'POST' | 'DELETE';

interface SendOptions {
  method: Method;
  path: string;
  body?: unknown;
  auth: boolean;
  query?: Record<string, string | number | undefined>;
}

interface RawResponse {
  status: number;
  url: string;
  /** Parsed JSON, or `undefined` for an empty body. */
  json: unknown;
}

/** The setting that raises the cap, named in the error. */
const MAX_RESPONSE_SETTING = '`maxResponseMb` in changelog.config.json or CHANGELOG_MAX_RESPONSE_MB';

const sleepReal = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The service client. Create one per workspace and process; it is safe to use
 * concurrently (the {@link RateBudget} decides when each request starts).
 */
export class ChangelogClient {
  readonly baseUrl: string;
  readonly budget: RateBudget;
  private readonly token: string | undefined;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly getRetries: number;
  private readonly rateLimitRetries: number;
  private readonly backoffMs: number;
  /** Timeout in ms for headers and for the body of every request. */
  readonly timeoutMs: number;
  /** Largest response body read, in bytes. */
  readonly maxResponseBytes: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly onWarning: (message: string) => void;
  private readonly onResponse: ClientOptions['onResponse'];
  private warnedVersion = false;

  /** @throws {ChangelogSyncError} `E_CONFIG` when `baseUrl` is not an http(s) URL. */
  constructor(options: ClientOptions) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch (cause) {
      throw new ChangelogSyncError('E_CONFIG', `CHANGELOG_BASE_URL is not a URL: ${JSON.stringify(options.baseUrl)}`, {
        cause,
        hint: 'set it to the service root, e.g. https://changelog.example.com',
      });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ChangelogSyncError('E_CONFIG', `CHANGELOG_BASE_URL must be http or https, got ${url.protocol}`, {
        hint: 'set it to the service root, e.g. https://changelog.example.com',
      });
    }
    this.baseUrl = url.href.replace(/\/+$/, '').replace(/\/api$/, '');
    this.token = options.token;
    this.budget = options.budget ?? new RateBudget();
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 10_000, connections: 8 });
    this.getRetries = options.getRetries ?? 3;
    this.rateLimitRetries = options.rateLimitRetries ?? 5;
    this.backoffMs = options.backoffMs ?? 250;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_MB * 2 ** 20;
    this.sleep = options.sleep ?? sleepReal;
    this.onWarning = options.onWarning ?? (() => undefined);
    this.onResponse = options.onResponse;
  }

  /** Closes the connection pool this client created (not one passed in). */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /**
   * Endpoint 1, `GET /api/workspace`: the token's workspace.
   * @throws {ChangelogSyncError} see the module description for the codes.
   */
  async getWorkspace(): Promise<Workspace> {
    return this.parse(workspaceSchema, await this.data('GET', '/api/workspace'), 'GET /api/workspace');
  }

  /**
   * Endpoint 2, `GET /api/entries[?limit=N]`: every entry, or the latest `limit`.
   * @param options.limit restrict to the latest N entries (spec rule 1).
   * @throws {ChangelogSyncError} see the module description for the codes.
   */
  async listEntries(options: { limit?: number } = {}): Promise<RemoteEntry[]> {
    const data = await this.data('GET', '/api/entries', { limit: options.limit });
    return this.parseList(remoteEntrySchema, data, 'GET /api/entries');
  }

  /**
   * Endpoint 3, `GET /api/entries/{id}`. Accepts the entry in an envelope or bare (the
   * spec does not show this body).
   * @throws {NotFoundError} `E_NOT_FOUND` when there is no such entry.
   */
  async getEntry(identifier: string): Promise<RemoteEntry> {
    const path = `/api/entries/${encodeURIComponent(identifier)}`;
    const res = await this.send({ method: 'GET', path, auth: true });
    const data = isEnvelope(res.json) ? this.unwrap(res, 'GET') : res.json;
    return this.parse(remoteEntrySchema, data, `GET ${path}`);
  }

  /**
   * Endpoint 4, `GET /api/entries/latest/{uuid}`: public, sent without a token.
   * @param workspaceUuid the workspace identifier shown in the workspace settings.
   * @throws {NotFoundError} `E_NOT_FOUND` for an unknown workspace or one with no entry.
   */
  async getLatestEntry(workspaceUuid: string): Promise<LatestEntry> {
    const path = `/api/entries/latest/${encodeURIComponent(workspaceUuid)}`;
    const res = await this.send({ method: 'GET', path, auth: false });
    const data = isEnvelope(res.json) ? this.unwrap(res, 'GET') : res.json;
    return this.parse(latestEntrySchema, data, `GET ${path}`);
  }

  /**
   * Endpoint 5, `POST /api/entry`: creates one entry. Never retried after an ambiguous
   * failure; callers that must not duplicate reconcile by slug (see `mirror/push.ts`).
   *
   * Accepts every response the spec allows: the created entry, only its identifier,
   * `{success: true}` without data, or an empty body.
   *
   * @throws {ValidationError} `E_VALIDATION` (400/422) with the service's field errors.
   * @throws {NetworkError} `E_NETWORK` when the response was lost: the entry may exist.
   */
  async createEntry(input: CreateEntryInput): Promise<CreateEntryResult> {
    const res = await this.send({ method: 'POST', path: '/api/entry', body: input, auth: true });
    const data = isEnvelope(res.json) ? this.unwrap(res, 'POST') : res.json;
    const result: CreateEntryResult = { status: res.status };
    if (data && typeof data === 'object' && !Array.isArray(data)) {
      const record = data as Record<string, unknown>;
      const id = record.identifier ?? record.uuid ?? record.id;
      if (typeof id === 'string' && id.length > 0) result.identifier = id;
      const full = remoteEntrySchema.safeParse(data);
      if (full.success && 'title' in record) result.entry = full.data;
    }
    return result;
  }

  /** Endpoint 6, `GET /api/tags`. @throws {ChangelogSyncError} see the module description. */
  async listTags(): Promise<Tag[]> {
    return this.parseList(tagSchema, await this.data('GET', '/api/tags'), 'GET /api/tags');
  }

  /** Endpoint 7, `GET /api/subscribers`. @throws {ChangelogSyncError} see the module description. */
  async listSubscribers(): Promise<Subscriber[]> {
    return this.parseList(subscriberSchema, await this.data('GET', '/api/subscribers'), 'GET /api/subscribers');
  }

  /**
   * Endpoint 8, `POST /api/subscribers`: imports subscribers (always sent as an array,
   * rule 2). A subscriber without `verified_at` is recorded by the service as verified
   * today (rule 4).
   * @returns the subscribers the service added.
   * @throws {ValidationError} `E_VALIDATION` (400/422).
   */
  async addSubscribers(subscribers: NewSubscriber[]): Promise<Subscriber[]> {
    const data = await this.data('POST', '/api/subscribers', undefined, { subscribers });
    return this.parseList(subscriberSchema, data, 'POST /api/subscribers');
  }

  /**
   * Endpoint 9, `DELETE /api/subscribers`.
   * @param emails addresses to remove (sent as `[{email}]`, rule 2).
   * @returns the addresses the service reports as removed.
   * @throws {ChangelogSyncError} see the module description.
   */
  async removeSubscribers(emails: string[]): Promise<string[]> {
    const data = await this.data('DELETE', '/api/subscribers', undefined, {
      subscribers: emails.map((email) => ({ email })),
    });
    if (!Array.isArray(data)) {
      throw new UnexpectedResponseError(`DELETE ${this.baseUrl}/api/subscribers: expected a list of emails in data`);
    }
    return data.map((d) => (typeof d === 'string' ? d : String((d as { email?: unknown })?.email ?? '')));
  }

  // --- transport -------------------------------------------------------------------

  private async data(method: Method, path: string, query?: SendOptions['query'], body?: unknown): Promise<unknown> {
    const res = await this.send({ method, path, auth: true, query, body });
    return this.unwrap(res, method);
  }

  private unwrap(res: RawResponse, method: Method): unknown {
    const env = envelopeSchema.safeParse(res.json);
    if (!env.success) {
      throw new UnexpectedResponseError(
        `${method} ${res.url}: ${res.status} but the body is not the service's envelope {success, version, data}`,
        { status: res.status },
      );
    }
    if (!env.data.success) {
      throw new UnexpectedResponseError(
        `${method} ${res.url}: ${res.status} with success=false${env.data.message ? `: ${env.data.message}` : ''}`,
        { status: res.status },
      );
    }
    if (env.data.version !== undefined && env.data.version !== SUPPORTED_VERSION && !this.warnedVersion) {
      this.warnedVersion = true;
      this.onWarning(`the service answers with interface version ${env.data.version}; changelog-sync was written for ${SUPPORTED_VERSION}`);
    }
    return env.data.data;
  }

  private parse<S extends z.ZodType>(schema: S, data: unknown, what: string): z.infer<S> {
    const parsed = schema.safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new UnexpectedResponseError(
        `${what}: the response does not have the fields the interface specifies (${issue?.path.join('.') || 'data'}: ${issue?.message})`,
        { cause: parsed.error },
      );
    }
    return parsed.data;
  }

  private parseList<S extends z.ZodType>(schema: S, data: unknown, what: string): Array<z.infer<S>> {
    if (!Array.isArray(data)) throw new UnexpectedResponseError(`${what}: expected a list in data, got ${typeof data}`);
    return data.map((item, i) => this.parse(schema, item, `${what} [${i}]`));
  }

  private url(path: string, query?: SendOptions['query']): string {
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url.href;
  }

  /**
   * Sends one request through the budget, with the retry policy of the module
   * description, and returns the parsed JSON of a 2xx response.
   */
  private async send(options: SendOptions): Promise<RawResponse> {
    const url = this.url(options.path, options.query);
    if (options.auth && !this.token) {
      throw new AuthError(`${options.method} ${url}: no access token configured`, {
        hint: 'set CHANGELOG_TOKEN to a workspace access token (workspace settings), or unset CHANGELOG_BASE_URL to use the built-in emulator',
      });
    }
    let transientTries = 0;
    let rateLimitedTries = 0;
    for (;;) {
      try {
        return await this.sendOnce(options, url);
      } catch (err) {
        if (err instanceof RateLimitedError && err.status === 429 && rateLimitedTries < this.rateLimitRetries) {
          rateLimitedTries++;
          continue; // the budget already blocks until Retry-After
        }
        const transient = err instanceof NetworkError || err instanceof ServiceError;
        if (options.method === 'GET' && transient && transientTries < this.getRetries) {
          const delay = this.backoffMs * 2 ** transientTries * (0.5 + Math.random() / 2);
          transientTries++;
          await this.sleep(delay);
          continue;
        }
        throw err;
      }
    }
  }

  private async sendOnce(options: SendOptions, url: string): Promise<RawResponse> {
    const { method } = options;
    const slot = await this.budget.acquire();
    const headers: Record<string, string> = {
      accept: 'application/json',
      'content-type': 'application/json',
      'user-agent': 'changelog-sync',
    };
    if (options.auth && this.token) headers.authorization = `Bearer ${this.token}`;
    const started = Date.now();
    let res: Dispatcher.ResponseData;
    try {
      res = await request(url, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        dispatcher: this.dispatcher,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        // undici's own timeouts run on a coarse (about one second) timer; push reasons
        // about how long a request can last, so the whole exchange is also cut exactly.
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (cause) {
      this.budget.settle(slot);
      throw new NetworkError(`${method} ${url}: no response (${describeCause(cause)})`, { cause, url });
    }
    this.budget.settle(slot);
    const status = res.statusCode;
    let text: string;
    try {
      text = await readBodyCapped(res, this.maxResponseBytes, `${method} ${url}: ${status}`);
    } catch (cause) {
      if (cause instanceof ChangelogSyncError) throw cause;
      throw new NetworkError(`${method} ${url}: ${res.statusCode} but the response body was cut off (${describeCause(cause)})`, {
        cause,
        status: res.statusCode,
      });
    }
    this.onResponse?.({ method, url, status, ms: Date.now() - started });
    // A 429's "remaining: 0" is what Retry-After already says, more precisely (onRateLimited below).
    this.budget.observe(headerNumber(res.headers['x-ratelimit-limit']), status === 429 ? undefined : headerNumber(res.headers['x-ratelimit-remaining']), slot.startedAt);

    let json: unknown;
    let jsonError: unknown;
    if (text.trim().length > 0) {
      try {
        json = JSON.parse(text);
      } catch (err) {
        jsonError = err;
      }
    }
    const message = json && typeof json === 'object' && 'message' in json ? String((json as { message: unknown }).message) : undefined;
    const where = `${method} ${url}: ${status}`;

    if (status === 429) {
      const retryAfter = parseRetryAfter(headerString(res.headers['retry-after']));
      this.budget.onRateLimited(retryAfter);
      throw new RateLimitedError(`${where} Too Many Requests${retryAfter !== undefined ? ` (retry after ${retryAfter}s)` : ''}`, {
        status,
        retryAfter,
        hint: 'the workspace allows 60 requests a minute and 1,440 a day',
      });
    }
    if (status >= 300 && status < 400) {
      const location = headerString(res.headers.location);
      throw new UnexpectedResponseError(`${where} redirect${location ? ` to ${location}` : ''} instead of JSON`, {
        status,
        hint: 'a redirect to a login page means the token was not accepted; check CHANGELOG_BASE_URL and CHANGELOG_TOKEN',
      });
    }
    if (status === 401 || status === 403) {
      throw new AuthError(`${where} ${status === 401 ? 'Unauthorized' : 'Forbidden'}${message ? `: ${message}` : ''}`, { status });
    }
    if (status === 404) throw new NotFoundError(`${where} Not Found${message ? `: ${message}` : ''}`, { status, url });
    if (status === 400 || status === 422) {
      const issues = fieldIssues(json);
      const detail = issues.length > 0 ? issues.map((i) => `${i.field}: ${i.message}`).join('; ') : message;
      throw new ValidationError(`${where} the service rejected the request${detail ? `: ${detail}` : ''}`, { status, issues });
    }
    if (status >= 500) throw new ServiceError(`${where} service error${message ? `: ${message}` : ''}`, { status });
    if (status < 200 || status >= 300) {
      throw new UnexpectedResponseError(`${where} unexpected status${message ? `: ${message}` : ''}`, { status });
    }
    if (jsonError !== undefined) {
      const kind = /^\s*</.test(text) ? 'an HTML page (a login page?)' : 'malformed JSON';
      throw new UnexpectedResponseError(`${where} returned ${kind} instead of JSON`, { status, cause: jsonError });
    }
    return { status, url, json };
  }
}

/**
 * The body of a response as text, read as a stream and stopped (the connection destroyed)
 * as soon as it is larger than `limit` bytes: a declared `Content-Length` above the limit
 * is refused before a byte is read.
 *
 * @param where `METHOD URL: status`, for the message.
 * @throws {ChangelogSyncError} `E_RESPONSE_TOO_LARGE` (with the response's status) naming
 *   method, URL, limit and the setting to raise.
 * @throws the stream's error when the body is cut off.
 */
export async function readBodyCapped(res: Pick<Dispatcher.ResponseData, 'body' | 'headers' | 'statusCode'>, limit: number, where: string): Promise<string> {
  const { body, headers } = res;
  const tooLarge = (what: string) => {
    body.destroy();
    const mb = limit / 2 ** 20;
    return new ChangelogSyncError('E_RESPONSE_TOO_LARGE', `${where}: the response ${what} is larger than the limit of ${Number.isInteger(mb) ? mb : mb.toFixed(2)} MB; reading stopped`, {
      // The status is kept: after a 2xx to a POST, the service has acted (push reconciles by the list).
      status: res.statusCode,
      hint: `raise the limit with ${MAX_RESPONSE_SETTING} if this workspace really is that large; else the service (or a proxy in front of it) answered with something that is not the changelog`,
    });
  };
  const declared = headerNumber(headers['content-length']);
  if (declared !== undefined && declared > limit) throw tooLarge(`body (Content-Length ${declared} bytes)`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(`body (more than ${limit} bytes read)`);
    chunks.push(chunk);
  }
  // As undici's text(): UTF-8 (invalid bytes replaced), a byte order mark dropped.
  const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function isEnvelope(json: unknown): boolean {
  return typeof json === 'object' && json !== null && !Array.isArray(json) && 'success' in json;
}

function headerString(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function headerNumber(value: string | string[] | undefined): number | undefined {
  const s = headerString(value);
  if (s === undefined || s.trim() === '') return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  if (Number.isFinite(n)) return Math.max(0, n);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** Field errors of a Laravel-style 422 body: `{message, errors: {field: [messages]}}`. */
function fieldIssues(json: unknown): FieldIssue[] {
  if (!json || typeof json !== 'object' || !('errors' in json)) return [];
  const errors = (json as { errors: unknown }).errors;
  if (!errors || typeof errors !== 'object') return [];
  return Object.entries(errors as Record<string, unknown>).flatMap(([field, msgs]) =>
    (Array.isArray(msgs) ? msgs : [msgs]).map((m) => ({ field, message: String(m) })),
  );
}

function describeCause(cause: unknown): string {
  if (cause && typeof cause === 'object') {
    const code = (cause as { code?: unknown }).code;
    const message = (cause as { message?: unknown }).message;
    return [code, message].filter((x) => typeof x === 'string' && x.length > 0).join(': ') || 'unknown error';
  }
  return String(cause);
}
