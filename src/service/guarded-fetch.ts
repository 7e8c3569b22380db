/**
 * The one fetcher for every request that content others wrote can aim (docs/security.md#requests-content-can-aim):
 * pull's image downloads (`src/sync/pull/media-fetch.ts`), push's image check
 * (`src/sync/push/image-probe.ts`). The tool runs in CI, whose network reaches a cloud metadata
 * service and private hosts, so every request follows the same rules:
 *
 * - **scheme**: `http:` and `https:` only, for the URL and every redirect; no credentials;
 * - **address**: never a private, loopback, link-local, metadata, unspecified, multicast or
 *   reserved address, in IPv4, IPv6, IPv4-mapped and NAT64 forms ({@link addressRefusal}),
 *   checked on a literal host and on every address a name resolves to by the connection's own
 *   lookup (so a second DNS answer cannot differ), for every redirect, which are followed here
 *   one by one, never by undici;
 * - **size**: a larger `Content-Length` is refused unread, a body dropped once it crosses the cap;
 * - **time**: one limit for the whole exchange, redirects included, and the caller's signal;
 * - **content type**: the caller says which it takes.
 *
 * Loopback is allowed only by {@link GuardedFetcherOptions.allowLoopback}, set when the
 * configured service (never content) is itself on loopback: the emulator of the tests and the
 * demo. No setting allows the other classes. A failure is a value, never a throw.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, request, type Dispatcher } from 'undici';
import { drop, headerString, readCapped } from './responses.js';
import type { RateBudget } from './rate-budget.js';

/** Bounds of one exchange. */
export interface FetchLimits {
  /** Largest body, in bytes. Default 10 MB (10 × 2^20). */
  maxBytes: number;
  /** Time for the whole exchange (redirects included), in ms. Default 30,000. */
  timeoutMs: number;
  /** Redirects followed. Default 5. */
  maxRedirects: number;
}

/** The defaults of {@link FetchLimits}. */
const FETCH_LIMITS: FetchLimits = { maxBytes: 10 * 2 ** 20, timeoutMs: 30_000, maxRedirects: 5 };

/** A `dns.lookup`-compatible function (tests resolve names to chosen addresses with one). */
export type Lookup = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/** Options of {@link GuardedFetcher}. */
export interface GuardedFetcherOptions {
  limits?: Partial<FetchLimits>;
  /** Resolves host names; default `dns.lookup`. */
  lookup?: Lookup;
  /** Allows loopback (127.0.0.0/8, ::1, mapped forms): only for a service on loopback ({@link allowsLoopback}). Default false. */
  allowLoopback?: boolean;
  /** The service's origin and rate budget: a request to that origin takes a slot like any request to the service. */
  service?: { origin: string; budget: RateBudget };
}

/** What a request takes back. */
export interface FetchRequest {
  /** The `Accept` header sent. */
  accept: string;
  /** Whether a `Content-Type` (lowercase, no parameters, `''` when missing) is taken; else "not {@link what}". */
  allows: (mime: string) => boolean;
  /** What the caller expects, for the reason of a refused type: `an image`. */
  what: string;
  /** False: the body is not read (the connection is closed once the headers are in). Default true. */
  readBody?: boolean;
  /** Ends the exchange early (a deadline of the caller's); the reason then says so. */
  signal?: AbortSignal;
}

/** A 200 of an allowed type, after any redirects. */
export interface FetchAnswer {
  ok: true;
  /** The URL that answered (the last redirect's target). */
  url: string;
  /** Its `Content-Type` as sent (first value), or undefined. */
  contentType: string | undefined;
  /** The body; empty when {@link FetchRequest.readBody} was false. */
  body: Buffer;
}

/** Why nothing was taken: a short sentence, no data beyond the URL's parts. */
export interface FetchRefusal {
  ok: false;
  reason: string;
  /** True when the caller's own signal ended it (not the host's fault). */
  stopped?: boolean;
  /**
   * True when the rules refused it (scheme, credentials, unparsable, a refused address before or
   * after DNS, on any redirect): refused again however often tried, unlike a host that is down.
   */
  refused?: boolean;
}

/** One class of addresses never connected to, and its name in a reason. */
interface AddressClass {
  label: string;
  list: BlockList;
}

/** Adds an IPv4 subnet with its NAT64 form (`64:ff9b::/96`, RFC 6052); `BlockList` matches the mapped form itself. */
function addV4(list: BlockList, network: string, prefix: number): void {
  list.addSubnet(network, prefix, 'ipv4');
  const [a, b, c, d] = network.split('.').map(Number) as [number, number, number, number];
  const hex = (x: number, y: number): string => ((x << 8) | y).toString(16);
  list.addSubnet(`64:ff9b::${hex(a, b)}:${hex(c, d)}`, 96 + prefix, 'ipv6');
}

/** A class of addresses from IPv4 subnets (`a.b.c.d/n`) and IPv6 subnets (`x::/n`). */
function addressClass(label: string, v4: string[], v6: string[]): AddressClass {
  const list = new BlockList();
  const split = (s: string) => s.split('/') as [string, string];
  for (const [network, prefix] of v4.map(split)) addV4(list, network, Number(prefix));
  for (const [network, prefix] of v6.map(split)) list.addSubnet(network, Number(prefix), 'ipv6');
  return { label, list };
}

/** Addresses refused whatever the caller allows; the metadata services first, for the reason. */
const NEVER: AddressClass[] = [
  addressClass('a cloud metadata address', ['169.254.169.254/32', '100.100.100.200/32'], ['fd00:ec2::254/128']),
  addressClass('a link-local address', ['169.254.0.0/16'], ['fe80::/10']),
  addressClass('a private address', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '198.18.0.0/15', '192.0.0.0/24'], ['fc00::/7', 'fec0::/10']),
  addressClass('an unspecified, multicast or reserved address', ['0.0.0.0/8', '224.0.0.0/4', '240.0.0.0/4'], ['::/128', 'ff00::/8']),
];

/** Loopback: refused unless {@link GuardedFetcherOptions.allowLoopback}. */
const LOOPBACK = addressClass('a loopback address', ['127.0.0.0/8'], ['::1/128']);

/**
 * Why an IP address (without brackets; anything else is not refused here) is never connected
 * to: `169.254.169.254 is a link-local address`; undefined when it may be.
 */
export function addressRefusal(address: string, allowLoopback = false): string | undefined {
  const family = isIP(address);
  if (family === 0) return undefined;
  const type = family === 6 ? 'ipv6' : 'ipv4';
  const hit = [...NEVER, ...(allowLoopback ? [] : [LOOPBACK])].find((c) => c.list.check(address, type));
  return hit && `${address} is ${hit.label}`;
}

/**
 * Why a URL is never requested, judged from the URL alone (scheme, credentials, a literal
 * refused address); `check` uses it offline.
 * @returns the reason (`169.254.169.254 is a cloud metadata address`), or undefined.
 */
export function urlRefusal(url: URL, allowLoopback = false): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `only http and https URLs are requested, not ${url.protocol.replace(/:$/, '')}`;
  if (url.username || url.password) return 'a URL with credentials';
  return addressRefusal(url.hostname.replace(/^\[|\]$/g, ''), allowLoopback);
}

/**
 * Whether a configured service URL (never content's) is on loopback, so the fetcher may allow
 * loopback; undefined (the demo's built-in emulator) is.
 */
export function allowsLoopback(baseUrl: string | undefined): boolean {
  if (baseUrl === undefined) return true;
  let host: string;
  try {
    host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  return host === 'localhost' || (isIP(host) !== 0 && LOOPBACK.list.check(host, isIP(host) === 6 ? 'ipv6' : 'ipv4'));
}

const REDIRECT = new Set([301, 302, 303, 307, 308]);

/** Guarded requests under {@link FetchLimits}; one connection pool per fetcher. */
export class GuardedFetcher {
  readonly limits: FetchLimits;
  readonly #agent: Agent;
  readonly #service: GuardedFetcherOptions['service'];
  readonly #allowLoopback: boolean;

  constructor(options: GuardedFetcherOptions = {}) {
    this.limits = { ...FETCH_LIMITS, ...options.limits };
    this.#service = options.service;
    this.#allowLoopback = options.allowLoopback === true;
    const resolve: Lookup = options.lookup ?? ((host, opts, cb) => dnsLookup(host, opts, cb));
    // Every address a name resolves to is checked, at connection time.
    const guarded = (hostname: string, opts: LookupOneOptions | LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void): void => {
      resolve(hostname, { ...opts, all: true }, (err, addresses) => {
        if (err) return callback(err, []);
        const refused = addresses.map((a) => addressRefusal(a.address, this.#allowLoopback)).find((r) => r !== undefined);
        if (refused || addresses.length === 0) {
          const e: NodeJS.ErrnoException = new Error(refused ? `${hostname} resolves to ${refused.replace(/ is /, ', ')}` : `${hostname} resolves to no address`);
          e.code = 'E_BLOCKED_ADDRESS';
          return callback(e, []);
        }
        if ((opts as LookupAllOptions).all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      });
    };
    this.#agent = new Agent({ connect: { lookup: guarded, timeout: this.limits.timeoutMs }, connections: 8 });
  }

  /** One GET of an absolute URL under this module's rules, redirects followed one by one: the answer, or why none. Never throws. */
  async get(url: string, what: FetchRequest): Promise<FetchAnswer | FetchRefusal> {
    const timeout = AbortSignal.timeout(this.limits.timeoutMs);
    const signal = what.signal ? AbortSignal.any([timeout, what.signal]) : timeout;
    let current: URL;
    try {
      current = new URL(url);
    } catch {
      return { ok: false, reason: 'not an absolute URL', refused: true };
    }
    try {
      for (let hop = 0; ; hop++) {
        const refused = urlRefusal(current, this.#allowLoopback);
        if (refused) return { ok: false, reason: hop === 0 ? refused : `redirected to ${current.protocol}//${current.host}: ${refused}`, refused: true };
        const res = await this.#get(current, what.accept, signal);
        if (REDIRECT.has(res.statusCode)) {
          drop(res);
          const location = headerString(res.headers, 'location');
          if (location === undefined) return { ok: false, reason: `HTTP ${res.statusCode} without a Location` };
          if (hop >= this.limits.maxRedirects) return { ok: false, reason: `more than ${this.limits.maxRedirects} redirects` };
          if (!URL.canParse(location, current)) return { ok: false, reason: `a redirect to something that is not a URL (HTTP ${res.statusCode})` };
          current = new URL(location, current);
          continue;
        }
        return await this.#accept(res, current, what);
      }
    } catch (err) {
      if (what.signal?.aborted) return { ok: false, reason: 'stopped before it answered', stopped: true };
      if (timeout.aborted) return { ok: false, reason: `no complete answer within ${this.limits.timeoutMs / 1000} s` };
      return failure(err);
    }
  }

  async #get(url: URL, accept: string, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
    const budgeted = this.#service && url.origin === this.#service.origin ? this.#service.budget : undefined;
    const slot = await budgeted?.acquire(signal);
    try {
      return await request(url, { method: 'GET', dispatcher: this.#agent, signal, headers: { accept, 'user-agent': 'changelog-sync' } });
    } finally {
      if (slot) budgeted!.settle(slot);
    }
  }

  async #accept(res: Dispatcher.ResponseData, url: URL, what: FetchRequest): Promise<FetchAnswer | FetchRefusal> {
    const fail = (reason: string): FetchRefusal => {
      drop(res);
      return { ok: false, reason };
    };
    if (res.statusCode !== 200) return fail(`HTTP ${res.statusCode}`);
    const contentType = headerString(res.headers, 'content-type');
    const mime = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    if (!what.allows(mime)) return fail(`not ${what.what} (Content-Type ${JSON.stringify((contentType ?? 'missing').slice(0, 60))})`);
    if (what.readBody === false) {
      drop(res);
      return { ok: true, url: url.href, contentType, body: Buffer.alloc(0) };
    }
    const body = await readCapped(res, this.limits.maxBytes);
    if (Buffer.isBuffer(body)) return { ok: true, url: url.href, contentType, body };
    return { ok: false, reason: `larger than ${sizeText(this.limits.maxBytes)}${body.declared === undefined ? '' : ` (${body.declared} bytes)`}` };
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

/** A connection failure in a few words (the code, else the message's first line); refused when the guarded lookup refused the address. */
function failure(err: unknown): FetchRefusal {
  let e = err as (Error & { code?: string; cause?: unknown }) | undefined;
  // undici wraps the socket's error.
  while (e?.cause instanceof Error && !e.code?.startsWith('E')) e = e.cause;
  const code = e?.code;
  const message = e?.message?.split('\n')[0] ?? String(err);
  if (code === 'E_BLOCKED_ADDRESS') return { ok: false, reason: message, refused: true };
  return { ok: false, reason: (code ? `${code}: ${message}` : message).slice(0, 200) };
}
