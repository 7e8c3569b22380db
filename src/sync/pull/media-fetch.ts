/**
 * Downloads of the images pull mirrors (docs/sync.md#images; docs/security.md#images-pull-mirrors).
 * Pull runs in CI on content others wrote, so a download is bounded on every side:
 *
 * - `http:` and `https:` URLs only, and every redirect too (at most {@link MediaLimits.maxRedirects});
 * - no connection to a link-local or cloud metadata address (169.254.0.0/16, fe80::/10,
 *   their IPv4-mapped forms, fd00:ec2::254, 100.100.100.200): checked on the URL's address
 *   when it is one, and on every address a host name resolves to, at connection time (a
 *   `lookup` of the connection, so a second resolution cannot differ from the checked one),
 *   for the first URL and for every redirect;
 * - a size cap ({@link MediaLimits.maxBytes}, default 10 MB): a larger `Content-Length` is
 *   refused before the body is read, a body is dropped as soon as it crosses the cap;
 * - a time cap for the whole download, redirects included ({@link MediaLimits.timeoutMs});
 * - an image type: the `Content-Type` must be PNG, JPEG, GIF, WebP, AVIF or SVG and the
 *   bytes must be that type (`media-type.ts`); an SVG is sanitised (`svg-sanitize.ts`).
 *
 * A failure is a value (`{ reason }`), never a throw: pull reports it and keeps the remote URL.
 *
 * @module
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, request, type Dispatcher } from 'undici';
import type { RateBudget } from '../../service/rate-budget.js';
import { declaredType, sniffType, SVG, type MediaType } from './media-type.js';
import { sanitizeSvg } from '../../convert/svg-sanitize.js';

/** Bounds of one download. */
export interface MediaLimits {
  /** Largest image, in bytes. Default 10 MB (10 × 2^20). */
  maxBytes: number;
  /** Time for the whole download (redirects included), in ms. Default 30,000. */
  timeoutMs: number;
  /** Redirects followed. Default 5. */
  maxRedirects: number;
}

/** The defaults of {@link MediaLimits}. */
const MEDIA_LIMITS: MediaLimits = { maxBytes: 10 * 2 ** 20, timeoutMs: 30_000, maxRedirects: 5 };

/** A `dns.lookup`-compatible function (tests resolve names to chosen addresses with one). */
export type Lookup = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/** Options of {@link MediaFetcher}. */
export interface MediaFetcherOptions {
  limits?: Partial<MediaLimits>;
  /** Resolves host names; default `dns.lookup`. */
  lookup?: Lookup;
  /**
   * The service's rate budget and its origin: a download from the service's own API origin
   * takes a slot of the budget like any request to the service; downloads from any other
   * host (the service's image host) do not.
   */
  service?: { origin: string; budget: RateBudget };
}

/** A downloaded image: its bytes (an SVG sanitised) and type. */
export interface FetchedImage {
  bytes: Buffer;
  type: MediaType;
  /** For an SVG: what the sanitiser removed (empty when nothing). */
  removed: string[];
  reason?: undefined;
}

/** Why an image was not downloaded (for the report: short, no data beyond the URL's parts). */
export interface FetchFailure {
  reason: string;
  bytes?: undefined;
}

/** Addresses never connected to: link-local, and the cloud metadata services. */
const BLOCKED = new BlockList();
BLOCKED.addSubnet('169.254.0.0', 16, 'ipv4');
BLOCKED.addSubnet('fe80::', 10, 'ipv6');
BLOCKED.addSubnet('::ffff:169.254.0.0', 112, 'ipv6');
BLOCKED.addAddress('fd00:ec2::254', 'ipv6');
BLOCKED.addAddress('100.100.100.200', 'ipv4');

/** True when an IP address (v4 or v6, without brackets) is one pull never connects to. */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return BLOCKED.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

const REDIRECT = new Set([301, 302, 303, 307, 308]);

/** Downloads images under {@link MediaLimits}; one connection pool for a pull. */
export class MediaFetcher {
  readonly limits: MediaLimits;
  readonly #agent: Agent;
  readonly #service: MediaFetcherOptions['service'];

  constructor(options: MediaFetcherOptions = {}) {
    this.limits = { ...MEDIA_LIMITS, ...options.limits };
    this.#service = options.service;
    const resolve: Lookup = options.lookup ?? ((host, opts, cb) => dnsLookup(host, opts, cb));
    // Every address a name resolves to is checked, at connection time.
    const guarded = (hostname: string, opts: LookupOneOptions | LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void): void => {
      resolve(hostname, { ...opts, all: true }, (err, addresses) => {
        if (err) return callback(err, []);
        const blocked = addresses.find((a) => isBlockedAddress(a.address));
        if (blocked || addresses.length === 0) {
          const e: NodeJS.ErrnoException = new Error(blocked ? `${hostname} resolves to ${blocked.address}, a link-local or metadata address` : `${hostname} resolves to no address`);
          e.code = 'E_BLOCKED_ADDRESS';
          return callback(e, []);
        }
        if ((opts as LookupAllOptions).all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      });
    };
    this.#agent = new Agent({ connect: { lookup: guarded, timeout: this.limits.timeoutMs }, connections: 8 });
  }

  /**
   * Downloads one image. Never throws: a failure is a {@link FetchFailure}.
   * @param url the image's URL as the entry has it (absolute).
   */
  async fetch(url: string): Promise<FetchedImage | FetchFailure> {
    const signal = AbortSignal.timeout(this.limits.timeoutMs);
    let current: URL;
    try {
      current = new URL(url);
    } catch {
      return { reason: 'not an absolute URL' };
    }
    try {
      for (let hop = 0; ; hop++) {
        const refused = refusal(current);
        if (refused) return { reason: hop === 0 ? refused : `redirected to ${current.protocol}//${current.host}: ${refused}` };
        const res = await this.#get(current, signal);
        if (REDIRECT.has(res.statusCode)) {
          await res.body.dump().catch(() => undefined);
          const location = res.headers.location;
          if (typeof location !== 'string') return { reason: `HTTP ${res.statusCode} without a Location` };
          if (hop >= this.limits.maxRedirects) return { reason: `more than ${this.limits.maxRedirects} redirects` };
          current = new URL(location, current);
          continue;
        }
        return await this.#accept(res);
      }
    } catch (err) {
      if (signal.aborted) return { reason: `no complete answer within ${this.limits.timeoutMs / 1000} s` };
      return { reason: failureText(err) };
    }
  }

  async #get(url: URL, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
    const budgeted = this.#service && url.origin === this.#service.origin ? this.#service.budget : undefined;
    const slot = await budgeted?.acquire();
    try {
      return await request(url, { method: 'GET', dispatcher: this.#agent, signal, headers: { accept: 'image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8', 'user-agent': 'changelog-sync' } });
    } finally {
      if (slot) budgeted!.settle(slot);
    }
  }

  async #accept(res: Dispatcher.ResponseData): Promise<FetchedImage | FetchFailure> {
    const fail = (reason: string): FetchFailure => {
      // Dropped unread: the abort this raises on the body is expected.
      res.body.on('error', () => undefined).destroy();
      return { reason };
    };
    if (res.statusCode !== 200) return fail(`HTTP ${res.statusCode}`);
    const header = res.headers['content-type'];
    const declared = declaredType(Array.isArray(header) ? header[0] : header);
    if (!declared) return fail(`not an image type (Content-Type ${String(header ?? 'missing').slice(0, 60)})`);
    const length = Number(res.headers['content-length']);
    const cap = this.limits.maxBytes;
    if (Number.isFinite(length) && length > cap) return fail(`larger than ${sizeText(cap)} (${length} bytes)`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > cap) return fail(`larger than ${sizeText(cap)}`);
      chunks.push(chunk as Buffer);
    }
    const bytes = Buffer.concat(chunks);
    const sniffed = sniffType(bytes);
    if (!sniffed) return { reason: `the bytes are not a PNG, JPEG, GIF, WebP, AVIF or SVG image (Content-Type ${declared.mime})` };
    if (sniffed.mime !== declared.mime) return { reason: `the bytes are ${sniffed.mime}, not the ${declared.mime} the Content-Type says` };
    if (sniffed !== SVG) return { bytes, type: sniffed, removed: [] };
    const clean = sanitizeSvg(bytes.toString('utf8'));
    if (!clean) return { reason: 'an SVG whose root element is not <svg>: refused' };
    return { bytes: Buffer.from(clean.svg, 'utf8'), type: SVG, removed: clean.removed };
  }

  /** Closes the connections. */
  async close(): Promise<void> {
    await this.#agent.close();
  }
}

/** A size for a reason: `10 MB`, or bytes below a megabyte. */
function sizeText(bytes: number): string {
  return bytes >= 2 ** 20 ? `${Math.round((bytes / 2 ** 20) * 10) / 10} MB` : `${bytes} bytes`;
}

/** Why a URL is not fetched at all, or undefined when it may be. */
function refusal(url: URL): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `only http and https images are mirrored, not ${url.protocol.replace(/:$/, '')}`;
  if (url.username || url.password) return 'a URL with credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isBlockedAddress(host)) return `${host} is a link-local or metadata address`;
  return undefined;
}

/** A connection failure in a few words: the code, else the message's first line. */
function failureText(err: unknown): string {
  let e = err as (Error & { code?: string; cause?: unknown }) | undefined;
  // undici wraps the socket's error.
  while (e?.cause instanceof Error && !e.code?.startsWith('E')) e = e.cause;
  const code = e?.code;
  const message = e?.message?.split('\n')[0] ?? String(err);
  if (code === 'E_BLOCKED_ADDRESS') return message;
  return code ? `${code}: ${message}`.slice(0, 200) : message.slice(0, 200);
}
