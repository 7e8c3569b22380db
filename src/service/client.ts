/**
 * The typed client of the changelog service: one method per endpoint of
 * docs/service-interface.md#endpoints (1-9).
 *
 * Every request sends JSON headers and, except the public latest entry, the bearer token; it
 * passes through one {@link RateBudget} (`transport.ts`). GETs retry transient failures;
 * POST and DELETE are never retried blindly; a 429 is retried for every method (`retry.ts`).
 *
 * Every method throws the codes of `http-errors.ts` (spec "Errors"), `E_UNEXPECTED_RESPONSE`
 * for a body that is not the envelope or lacks the specified fields, `E_AUTH` without a token,
 * `E_RATE_LIMITED` past the budget ("Limits"), and a read's `signal.reason` once it aborted.
 * Messages name the method, the URL (without credentials) and the status, never the token.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, type Dispatcher } from 'undici';
import type { z } from 'zod';
import { AuthError, ChangelogSyncError, UnexpectedResponseError } from '../core/errors.js';
import { withoutCredentials } from '../core/base-url.js';
import { DEFAULT_MAX_RESPONSE_MB } from '../core/config.js';
import { RateBudget } from './rate-budget.js';
import { withRetries, type RetryPolicy } from './retry.js';
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
import { exchange, type Exchange, type Method, type Transport } from './transport.js';

/** Options of {@link ChangelogClient}, with its {@link RetryPolicy}. */
export interface ClientOptions extends Partial<RetryPolicy> {
  /** Service root, e.g. `https://changelog.example.com` (paths `/api/...` are appended). */
  baseUrl: string;
  /** Workspace access token. Needed for every endpoint but the public latest entry. */
  token?: string | undefined;
  /** The rate gate shared by every request of this process. Default: a fresh one. */
  budget?: RateBudget;
  /** undici dispatcher (an `Agent`, or a `MockAgent` in tests). Default: a keep-alive Agent. */
  dispatcher?: Dispatcher;
  /** Timeout in ms for headers and for the body. Default 30,000. */
  timeoutMs?: number;
  /** Largest response body read, in bytes (else `E_RESPONSE_TOO_LARGE`). Default {@link DEFAULT_MAX_RESPONSE_MB} MB. */
  maxResponseBytes?: number;
  /** Receives warnings (an unknown interface version, a rate-limit header out of bounds, ...). Default: ignored. */
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

/** The data of a 2xx response, its status, and `METHOD URL: status` for messages about it. */
interface Reply {
  data: unknown;
  status: number;
  where: string;
}

/** One request of {@link ChangelogClient}: what {@link Exchange} sends, and how the path and answer are read. */
interface Call extends Pick<Exchange, 'body' | 'beforeSend' | 'signal'> {
  /** Sends the token (default true); without one configured, `E_AUTH` before anything is sent. */
  auth?: boolean;
  query?: Record<string, number | undefined>;
  /** A body that is not the envelope is the data itself (a shape the spec does not show). */
  orBare?: boolean;
}

/** Options of a read that a job may cancel (`reads.ts`). */
export interface ReadOptions {
  /** Once aborted, the read stops: no retry, no slot booked, the request in flight closed; it rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * The service client. Create one per workspace and process; it is safe to use
 * concurrently (the {@link RateBudget} decides when each request starts).
 */
export class ChangelogClient {
  readonly baseUrl: string;
  readonly budget: RateBudget;
  private readonly token: string | undefined;
  private readonly ownsDispatcher: boolean;
  /** Timeout in ms for headers and for the body of every request. */
  readonly timeoutMs: number;
  private readonly transport: Transport;
  private readonly retry: RetryPolicy;
  private readonly onWarning: (message: string) => void;
  private warnedVersion = false;

  /**
   * Drops a user name or password from `baseUrl` (the service takes the token), so no message names them.
   * @throws {ChangelogSyncError} `E_CONFIG` when `baseUrl` is not an http(s) URL.
   */
  constructor(options: ClientOptions) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch (cause) {
      throw new ChangelogSyncError('E_CONFIG', 'CHANGELOG_BASE_URL is not a URL (the value is not shown: it may hold a secret)', {
        cause,
        hint: 'set it to the service root, e.g. https://changelog.example.com',
      });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ChangelogSyncError('E_CONFIG', `CHANGELOG_BASE_URL must be http or https, got ${url.protocol}`, {
        hint: 'set it to the service root, e.g. https://changelog.example.com',
      });
    }
    this.baseUrl = withoutCredentials(url.href).replace(/\/+$/, '').replace(/\/api$/, '');
    this.token = options.token;
    this.budget = options.budget ?? new RateBudget();
    this.ownsDispatcher = options.dispatcher === undefined;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.transport = {
      dispatcher: options.dispatcher ?? new Agent({ keepAliveTimeout: 10_000, connections: 8 }),
      budget: this.budget,
      timeoutMs: this.timeoutMs,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_MB * 2 ** 20,
      onResponse: options.onResponse,
      onNote: (m) => this.onWarning(m),
    };
    this.retry = {
      getRetries: options.getRetries ?? 3,
      rateLimitRetries: options.rateLimitRetries ?? 5,
      backoffMs: options.backoffMs ?? 250,
      sleep: options.sleep ?? ((ms) => sleep(ms)),
    };
    this.onWarning = options.onWarning ?? (() => undefined);
  }

  /** Closes the connection pool this client created (not one passed in). */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.transport.dispatcher.close();
  }

  /**
   * Endpoint 1, `GET /api/workspace`: the token's workspace.
   * @throws {ChangelogSyncError} the codes the module lists.
   */
  async getWorkspace(options: ReadOptions = {}): Promise<Workspace> {
    return this.parse(workspaceSchema, await this.call('GET', '/api/workspace', options));
  }

  /**
   * Endpoint 2, `GET /api/entries[?limit=N]`: every entry, or the latest `limit` (rule 1).
   * @throws {ChangelogSyncError} the codes the module lists.
   */
  async listEntries(options: { limit?: number } & ReadOptions = {}): Promise<RemoteEntry[]> {
    return this.parseList(remoteEntrySchema, await this.call('GET', '/api/entries', { query: { limit: options.limit }, signal: options.signal }));
  }

  /**
   * Endpoint 3, `GET /api/entries/{id}`, in an envelope or bare (the spec does not show this body).
   * @throws {NotFoundError} `E_NOT_FOUND` when there is no such entry; else the codes the module lists.
   */
  async getEntry(identifier: string): Promise<RemoteEntry> {
    const path = `/api/entries/${encodeURIComponent(identifier)}`;
    return this.parse(remoteEntrySchema, await this.call('GET', path, { orBare: true }));
  }

  /**
   * Endpoint 4, `GET /api/entries/latest/{uuid}` of the workspace's identifier: public, sent without a token.
   * @throws {NotFoundError} `E_NOT_FOUND` for an unknown workspace or one with no entry; else the codes the module lists.
   */
  async getLatestEntry(workspaceUuid: string): Promise<LatestEntry> {
    const path = `/api/entries/latest/${encodeURIComponent(workspaceUuid)}`;
    return this.parse(latestEntrySchema, await this.call('GET', path, { auth: false, orBare: true }));
  }

  /**
   * Endpoint 5, `POST /api/entry`: creates one entry. Never retried after an ambiguous failure;
   * push reconciles by slug (`sync/push/reconcile.ts`). Accepts every response the spec allows:
   * the entry, only its identifier, `{success: true}` without data, or an empty body.
   *
   * @param options.beforeSend called once the rate budget admitted the request, just before it
   *   leaves: push's fence (docs/sync.md#fencing); what it throws is thrown, nothing sent.
   * @throws {ValidationError} `E_VALIDATION` (400/422) with the service's field errors.
   * @throws {NetworkError} `E_NETWORK` when the response was lost: the entry may exist
   *   (docs/sync.md#sync-semantics); else the codes the module lists.
   */
  async createEntry(input: CreateEntryInput, options: { beforeSend?: () => Promise<void> } = {}): Promise<CreateEntryResult> {
    const { data, status } = await this.call('POST', '/api/entry', { body: input, beforeSend: options.beforeSend, orBare: true });
    const result: CreateEntryResult = { status };
    if (data && typeof data === 'object' && !Array.isArray(data)) {
      const record = data as Record<string, unknown>;
      const id = record.identifier ?? record.uuid ?? record.id;
      if (typeof id === 'string' && id.length > 0) result.identifier = id;
      const full = remoteEntrySchema.safeParse(data);
      if (full.success && 'title' in record) result.entry = full.data;
    }
    return result;
  }

  /**
   * Endpoint 6, `GET /api/tags`.
   * @throws {ChangelogSyncError} the codes the module lists.
   */
  async listTags(options: ReadOptions = {}): Promise<Tag[]> {
    return this.parseList(tagSchema, await this.call('GET', '/api/tags', options));
  }

  /**
   * Endpoint 7, `GET /api/subscribers`.
   * @throws {ChangelogSyncError} the codes the module lists.
   */
  async listSubscribers(): Promise<Subscriber[]> {
    return this.parseList(subscriberSchema, await this.call('GET', '/api/subscribers'));
  }

  /**
   * Endpoint 8, `POST /api/subscribers` (always an array, rule 2; one without `verified_at` is
   * recorded as verified today, rule 4).
   * @returns the subscribers the service added.
   * @throws {ValidationError} `E_VALIDATION` (400/422); else the codes the module lists.
   */
  async addSubscribers(subscribers: NewSubscriber[]): Promise<Subscriber[]> {
    return this.parseList(subscriberSchema, await this.call('POST', '/api/subscribers', { body: { subscribers } }));
  }

  /**
   * Endpoint 9, `DELETE /api/subscribers` (sent as `[{email}]`, rule 2).
   * @returns the addresses the service reports as removed.
   * @throws {ChangelogSyncError} the codes the module lists.
   */
  async removeSubscribers(emails: string[]): Promise<string[]> {
    const { data, where } = await this.call('DELETE', '/api/subscribers', {
      body: { subscribers: emails.map((email) => ({ email })) },
    });
    if (!Array.isArray(data)) throw new UnexpectedResponseError(`${where} but data is not a list of emails`);
    return data.map(removedEmail);
  }

  /**
   * Sends one request with the retry policy of `retry.ts`: the envelope's `data` of a 2xx response;
   * an envelope of another interface version is told to `onWarning`, once.
   */
  private async call(method: Method, path: string, options: Call = {}): Promise<Reply> {
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const auth = options.auth ?? true;
    if (auth && !this.token) {
      throw new AuthError(`${method} ${url.href}: no access token configured`, {
        hint: 'set CHANGELOG_TOKEN to a workspace access token (workspace settings), or unset CHANGELOG_BASE_URL to use the built-in emulator',
      });
    }
    const ex: Exchange = { method, url: url.href, token: auth ? this.token : undefined, body: options.body, beforeSend: options.beforeSend, signal: options.signal };
    const { status, json } = await withRetries(method, this.retry, () => exchange(this.transport, ex), options.signal);
    const where = `${method} ${url.href}: ${status}`;
    if (options.orBare && !isEnvelope(json)) return { data: json, status, where };
    const env = envelopeSchema.safeParse(json);
    if (!env.success) {
      throw new UnexpectedResponseError(`${where} but the body is not the service's envelope {success, version, data}`, { status });
    }
    if (!env.data.success) {
      throw new UnexpectedResponseError(`${where} with success=false${env.data.message ? `: ${env.data.message}` : ''}`, { status });
    }
    if (env.data.version !== undefined && env.data.version !== SUPPORTED_VERSION && !this.warnedVersion) {
      this.warnedVersion = true;
      this.onWarning(`the service answers with interface version ${env.data.version}; changelog-sync was written for ${SUPPORTED_VERSION}`);
    }
    return { data: env.data.data, status, where };
  }

  /** @param item the index in a list, for the message. */
  private parse<S extends z.ZodType>(schema: S, { data, where }: Pick<Reply, 'data' | 'where'>, item?: number): z.infer<S> {
    const parsed = schema.safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const what = item === undefined ? 'the response' : `item ${item} of the list`;
      throw new UnexpectedResponseError(
        `${where} but ${what} does not have the fields the interface specifies (${issue?.path.join('.') || 'data'}: ${issue?.message})`,
        { cause: parsed.error },
      );
    }
    return parsed.data;
  }

  private parseList<S extends z.ZodType>(schema: S, { data, where }: Reply): Array<z.infer<S>> {
    if (!Array.isArray(data)) throw new UnexpectedResponseError(`${where} but data is not a list (got ${typeof data})`);
    return data.map((item, i) => this.parse(schema, { data: item, where }, i));
  }
}

/** An address the service reports as removed: the string itself, or an object's `email`. */
function removedEmail(item: unknown): string {
  if (typeof item === 'string') return item;
  const email = item !== null && typeof item === 'object' && 'email' in item ? item.email : undefined;
  return typeof email === 'string' || typeof email === 'number' || typeof email === 'boolean' ? String(email) : '';
}

function isEnvelope(json: unknown): boolean {
  return typeof json === 'object' && json !== null && !Array.isArray(json) && 'success' in json;
}
