/**
 * A local, stateful HTTP implementation of the whole service interface
 * (service-spec.md, all nine endpoints), for tests, the demo and `dev`.
 *
 * - Envelope `{success, version: "1.0", data}` on every authenticated operation.
 * - Bearer tokens per workspace; a missing or wrong token gets a 401 JSON body when the
 *   request accepts JSON, and otherwise a 302 to a login page (a Laravel app's behaviour).
 * - `x-ratelimit-limit` / `x-ratelimit-remaining` on every response; the per-minute and
 *   per-day limits per workspace are enforced with 429 and `Retry-After`. Window lengths
 *   and the clock are configurable so tests run in seconds.
 * - Fault injection ({@link EmulatorFaults}) and a request log ({@link RequestLogRecord})
 *   for tests that try to break the client.
 *
 * @module
 */
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  EmulatorStore,
  EmulatorValidationError,
  entryResource,
  type EmulatorWorkspace,
} from './store.js';
import { SlidingLimiter } from './limits.js';

/** What the emulator may do wrong on purpose. Every field is optional; all off by default. */
export interface EmulatorFaults {
  /** Drop the connection after committing every Nth `POST /api/entry` (1 = every one). */
  dropAfterCommitEvery?: number;
  /** Drop the connection after committing a `POST /api/entry` with this probability (0..1). */
  dropAfterCommitProbability?: number;
  /** Answer this fraction (0..1) of API requests with a 500, before doing anything. */
  serverErrorRate?: number;
  /** Answer every Nth `POST /api/entry` with a 500 after committing the entry (the entry exists). */
  errorAfterCommitEvery?: number;
  /** Delay every response by this many ms. */
  latencyMs?: number;
  /** Answer the next N API requests with 429 (a burst), before doing anything. */
  rateLimitBurst?: number;
  /** `Retry-After` seconds sent with injected 429s. Default 1. */
  rateLimitBurstRetryAfter?: number;
  /** Answer API requests with an HTML page (status 200) instead of JSON. */
  htmlBody?: boolean;
  /** Answer API requests with malformed JSON (status 200). */
  malformedJson?: boolean;
  /**
   * Answer API requests with a valid JSON envelope (status 200) of this many MB (2^20
   * bytes), padded with whitespace and streamed with backpressure, so a client that stops
   * reading stops the sending: `bytesSent` of the request log says how much went out.
   */
  oversizeBodyMb?: number;
  /** Send the {@link oversizeBodyMb} body without `Content-Length` (chunked): only the bytes read tell its size. */
  oversizeBodyChunked?: boolean;
  /** What `POST /api/entry` returns: the entry (default), only its identifier, `{success}`, or an empty 201. */
  createResponse?: CreateResponseShape;
  /**
   * Hold every Nth `POST /api/entry` (1 = every one) for {@link stallMs} before answering:
   * a client with a shorter timeout gives up while the service still works on it.
   */
  stallCreateEvery?: number;
  /** How long a stalled create is held, in ms. Default 1,000. */
  stallMs?: number;
  /**
   * Where the stall happens: before the entry is committed (default: the entry appears
   * only after the client may have given up) or after (the entry exists, the answer is late).
   */
  stallAfterCommit?: boolean;
  /**
   * While set, every API request waits (after it was logged and counted) until this
   * promise settles: tests freeze the service at an exact point of a client's run.
   */
  pause?: Promise<unknown>;
  /** Random source for the probabilistic faults (tests pass a seeded one). Default Math.random. */
  random?: () => number;
}

/**
 * Writes a 200 with a JSON envelope of exactly `total` bytes (whitespace padding), chunk
 * by chunk, waiting for the client to take each one; stops when the client goes away.
 */
async function streamOversizeBody(res: ServerResponse, total: number, chunked: boolean, record: RequestLogRecord): Promise<void> {
  const head = Buffer.from('{"success":true,"data":[]');
  const tail = Buffer.from('}');
  const pad = Buffer.alloc(64 * 1024, 0x20);
  res.writeHead(200, { 'content-type': 'application/json', ...(chunked ? {} : { 'content-length': String(Math.max(total, head.length + tail.length)) }) });
  let sent = 0;
  let closed = false;
  res.once('close', () => (closed = true));
  const write = (buf: Buffer): boolean => {
    sent += buf.length;
    record.bytesSent = sent;
    return res.write(buf);
  };
  write(head);
  while (!closed && sent < total - tail.length) {
    const n = Math.min(pad.length, total - tail.length - sent);
    if (!write(n === pad.length ? pad : pad.subarray(0, n)) && !closed) {
      await new Promise<void>((resolve) => {
        const go = () => {
          res.off('drain', go);
          res.off('close', go);
          resolve();
        };
        res.on('drain', go);
        res.on('close', go);
      });
    }
  }
  if (closed) {
    record.dropped = true;
    return;
  }
  record.bytesSent = sent + tail.length;
  res.end(tail);
}

/** The shapes of a `POST /api/entry` answer the spec leaves open ("Gaps in the endpoints"). */
export const CREATE_RESPONSE_SHAPES = ['entry', 'identifier', 'success-only', 'empty'] as const;
export type CreateResponseShape = (typeof CREATE_RESPONSE_SHAPES)[number];

/** Limits per workspace. Defaults are the service's: 60 a minute, 1,440 a day. */
export interface EmulatorLimits {
  perMinute?: number;
  perDay?: number;
  /** Length of the per-minute window in ms. Default 60,000. */
  windowMs?: number;
  /** Length of the per-day window in ms. Default 86,400,000. */
  dayMs?: number;
}

/** One request as the emulator saw it. */
export interface RequestLogRecord {
  /**
   * When the request arrived (emulator clock, ms). An authenticated request that was not
   * refused by the limits was counted against them at this time.
   */
  at: number;
  method: string;
  path: string;
  /** The status answered (0 while the request is being handled). */
  status: number;
  /** ms from arrival to the answer (or the dropped connection). */
  ms?: number;
  /** For `POST /api/entry`: the slug sent, when one was. */
  slug?: string;
  /** Workspace identifier, when the token was valid. */
  workspace?: string;
  /** Which fault answered it, if one did. */
  fault?: string;
  /** True when the connection was dropped instead of answering. */
  dropped?: boolean;
  /** For an {@link EmulatorFaults.oversizeBodyMb} answer: the bytes of its body written before the client went away (or all). */
  bytesSent?: number;
}

/** Options of {@link startEmulator}. */
export interface EmulatorOptions {
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Interface to listen on. Default 127.0.0.1 (loopback only). */
  host?: string;
  /** A prepared store (see `seed.ts`); default an empty one. */
  store?: EmulatorStore;
  limits?: EmulatorLimits;
  faults?: EmulatorFaults;
  /** Clock in ms; default Date.now. */
  now?: () => number;
}

/** A running emulator. */
export interface RunningEmulator {
  /** Base URL to configure as `CHANGELOG_BASE_URL`, e.g. `http://127.0.0.1:40123`. */
  url: string;
  port: number;
  store: EmulatorStore;
  /** Every request so far, in arrival order. */
  log: RequestLogRecord[];
  /** Faults in force; change them at any time. */
  faults: EmulatorFaults;
  /**
   * Emits `request` (a {@link RequestLogRecord}, on arrival) and `response` (the same
   * record once answered or dropped): tests act at exact points of a client's run.
   */
  events: EventEmitter<{ request: [RequestLogRecord]; response: [RequestLogRecord] }>;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

const VERSION = '1.0';

/**
 * Starts the emulator.
 *
 * @example
 * ```ts
 * const emu = await startEmulator({ port: 0, store: seedStore(demoSeed) });
 * process.env.CHANGELOG_BASE_URL = emu.url;
 * ```
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const now = options.now ?? Date.now;
  const store = options.store ?? new EmulatorStore(now);
  const limits = options.limits ?? {};
  const faults: EmulatorFaults = options.faults ?? {};
  const log: RequestLogRecord[] = [];
  const events = new EventEmitter<{ request: [RequestLogRecord]; response: [RequestLogRecord] }>();
  const perMinute = limits.perMinute ?? 60;
  const perDay = limits.perDay ?? 1440;
  const limiters = new Map<string, { minute: SlidingLimiter; day: SlidingLimiter }>();
  let createCount = 0;

  const limiterFor = (ws: EmulatorWorkspace) => {
    let l = limiters.get(ws.info.identifier);
    if (!l) {
      l = {
        minute: new SlidingLimiter(perMinute, limits.windowMs ?? 60_000, now),
        day: new SlidingLimiter(perDay, limits.dayMs ?? 86_400_000, now),
      };
      limiters.set(ws.info.identifier, l);
    }
    return l;
  };

  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) send(res, 500, { message: `emulator error: ${(err as Error).message}` });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = now();
    const url = new URL(req.url ?? '/', 'http://emulator');
    const method = req.method ?? 'GET';
    const record: RequestLogRecord = { at, method, path: url.pathname + url.search, status: 0 };
    log.push(record);
    events.emit('request', record);
    const done = () => {
      record.ms = now() - at;
      events.emit('response', record);
    };
    const reply = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      send(res, status, payload, headers);
      done();
    };
    const raw = (status: number, headers: Record<string, string>, text: string) => {
      record.status = status;
      res.writeHead(status, headers);
      res.end(text);
      done();
    };
    const drop = () => {
      record.dropped = true;
      res.socket?.destroy();
      done();
    };

    if (url.pathname === '/login') {
      return raw(200, { 'content-type': 'text/html; charset=utf-8' }, '<!doctype html><html><head><title>Log in</title></head><body><form method="post"><input name="email"><input type="password" name="password"></form></body></html>');
    }
    if (!url.pathname.startsWith('/api/')) return reply(404, { message: 'Not Found' });

    // Public endpoint 4.
    const latestMatch = /^\/api\/entries\/latest\/([^/]+)$/.exec(url.pathname);
    if (latestMatch && method === 'GET') {
      await readBody(req);
      if (faults.latencyMs) await delay(faults.latencyMs);
      const ws = store.byIdentifier(decodeURIComponent(latestMatch[1]!));
      const latest = ws ? store.latest(ws) : undefined;
      if (!latest) return reply(404, { message: 'No entry found.' });
      return reply(200, latest, { 'x-ratelimit-limit': String(perMinute), 'x-ratelimit-remaining': String(perMinute) });
    }

    // Authentication (spec "Authentication"; "Errors" rule 4).
    const auth = req.headers.authorization ?? '';
    const token = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim();
    const ws = token ? store.byToken(token) : undefined;
    if (!ws) {
      await readBody(req);
      const wantsJson = /application\/json/i.test(req.headers.accept ?? '');
      if (!wantsJson) return raw(302, { location: '/login' }, '');
      return reply(401, { message: 'Unauthenticated.' });
    }
    record.workspace = ws.info.identifier;

    // Rate limits (spec "Limits"), counted on arrival as a throttling middleware does:
    // before the request body is read and before any processing time.
    const limiter = limiterFor(ws);
    const minuteWait = limiter.minute.waitMs();
    const dayWait = limiter.day.waitMs();
    if (minuteWait > 0 || dayWait > 0) {
      await readBody(req);
      const retryAfter = Math.max(1, Math.ceil(Math.max(minuteWait, dayWait) / 1000));
      return reply(429, { message: 'Too Many Attempts.' }, {
        'retry-after': String(retryAfter),
        'x-ratelimit-limit': String(perMinute),
        'x-ratelimit-remaining': '0',
      });
    }
    limiter.minute.take();
    limiter.day.take();
    const rl = { 'x-ratelimit-limit': String(perMinute), 'x-ratelimit-remaining': String(limiter.minute.remaining()) };
    const body = await readBody(req);
    if (method === 'POST' && url.pathname === '/api/entry') record.slug = slugOf(body);

    // Injected faults that answer before anything is done.
    if (faults.rateLimitBurst && faults.rateLimitBurst > 0) {
      faults.rateLimitBurst--;
      record.fault = '429-burst';
      return reply(429, { message: 'Too Many Attempts.' }, { 'retry-after': String(faults.rateLimitBurstRetryAfter ?? 1), 'x-ratelimit-limit': String(perMinute), 'x-ratelimit-remaining': '0' });
    }
    const random = faults.random ?? Math.random;
    if (faults.pause) await faults.pause.catch(() => undefined);
    if (faults.latencyMs) await delay(faults.latencyMs);
    if (faults.serverErrorRate && random() < faults.serverErrorRate) {
      record.fault = '500';
      return reply(500, { message: 'Server Error' }, rl);
    }
    if (faults.htmlBody) {
      record.fault = 'html';
      return raw(200, { 'content-type': 'text/html; charset=utf-8' }, '<!doctype html><html><body><h1>Welcome</h1></body></html>');
    }
    if (faults.malformedJson) {
      record.fault = 'malformed-json';
      return raw(200, { 'content-type': 'application/json' }, '{"success": true, "data": [');
    }
    if (faults.oversizeBodyMb) {
      record.fault = 'oversize-body';
      record.status = 200;
      await streamOversizeBody(res, Math.round(faults.oversizeBodyMb * 2 ** 20), faults.oversizeBodyChunked === true, record);
      return done();
    }
    const ok = (data: unknown, status = 200) => reply(status, { success: true, version: VERSION, data }, rl);
    const invalid = (err: EmulatorValidationError) => reply(422, { message: err.message, errors: err.errors }, rl);

    const path = url.pathname;
    try {
      if (method === 'GET' && path === '/api/workspace') return ok(ws.info);
      if (method === 'GET' && path === '/api/entries') {
        const raw = url.searchParams.get('limit');
        let limit: number | undefined;
        if (raw !== null) {
          limit = Number(raw);
          if (!Number.isInteger(limit) || limit < 1) throw new EmulatorValidationError({ limit: ['The limit field must be a positive integer.'] });
        }
        return ok(store.listEntries(ws, limit).map(entryResource));
      }
      const one = /^\/api\/entries\/([^/]+)$/.exec(path);
      if (method === 'GET' && one) {
        const entry = ws.entries.find((e) => e.identifier === decodeURIComponent(one[1]!));
        if (!entry) return reply(404, { message: 'Entry not found.' }, rl);
        return ok(entryResource(entry));
      }
      if (method === 'POST' && path === '/api/entry') {
        const json = parseJson(body);
        createCount++;
        const n = createCount;
        const stall = faults.stallCreateEvery !== undefined && faults.stallCreateEvery > 0 && n % faults.stallCreateEvery === 0;
        if (stall) record.fault = faults.stallAfterCommit ? 'stall-after-commit' : 'stall-before-commit';
        if (stall && !faults.stallAfterCommit) await delay(faults.stallMs ?? 1000);
        const entry = store.createEntry(ws, json);
        if (stall && faults.stallAfterCommit) await delay(faults.stallMs ?? 1000);
        const every = faults.dropAfterCommitEvery;
        const dropIt =
          (every !== undefined && every > 0 && n % every === 0) ||
          (faults.dropAfterCommitProbability !== undefined && random() < faults.dropAfterCommitProbability);
        if (dropIt) {
          record.status = 201;
          record.fault = 'drop-after-commit';
          return drop();
        }
        if (faults.errorAfterCommitEvery !== undefined && faults.errorAfterCommitEvery > 0 && n % faults.errorAfterCommitEvery === 0) {
          record.fault = '500-after-commit';
          return reply(500, { message: 'Server Error' }, rl);
        }
        switch (faults.createResponse ?? 'entry') {
          case 'identifier':
            return ok({ identifier: entry.identifier }, 201);
          case 'success-only':
            return reply(201, { success: true, version: VERSION }, rl);
          case 'empty':
            return raw(201, rl, '');
          default:
            return ok(entryResource(entry), 201);
        }
      }
      if (method === 'GET' && path === '/api/tags') return ok(ws.tags);
      if (method === 'GET' && path === '/api/subscribers') return ok(ws.subscribers);
      if (method === 'POST' && path === '/api/subscribers') return ok(store.addSubscribers(ws, parseJson(body)));
      if (method === 'DELETE' && path === '/api/subscribers') return ok(store.removeSubscribers(ws, parseJson(body)));
      return reply(404, { message: 'Not Found' }, rl);
    } catch (err) {
      if (err instanceof EmulatorValidationError) return invalid(err);
      if (err instanceof SyntaxError) return reply(400, { message: 'Malformed JSON body.' }, rl);
      throw err;
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    store,
    log,
    faults,
    events,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The `slug` of a create request's JSON body, for the request log. */
function slugOf(body: string): string | undefined {
  try {
    const slug = (JSON.parse(body) as { slug?: unknown } | null)?.slug;
    return typeof slug === 'string' ? slug : undefined;
  } catch {
    return undefined;
  }
}

function parseJson(body: string): unknown {
  return body.trim() === '' ? {} : JSON.parse(body);
}

function send(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
