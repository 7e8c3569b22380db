/**
 * A local, stateful HTTP implementation of the whole service interface
 * (docs/service-interface.md#endpoints), for tests, the demo and `dev`: the envelope; bearer
 * tokens per workspace (a wrong one gets a 401 JSON body, or a 302 to a login page when the
 * request does not accept JSON, as Laravel does); rate-limit headers and the minute and day
 * limits enforced with 429 (windows and clock configurable); fault injection (`faults.ts`) and
 * a request log ({@link RequestLogRecord}). The endpoints are in `routes.ts`.
 */
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { buffer } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';
import { answerInjectedFault, type EmulatorFaults } from './faults.js';
import { listen, startMediaHost, type MediaRequest } from './media-host.js';
import { Responder, type AnswerRecord } from './responder.js';
import { routeApi } from './routes.js';
import { EmulatorStore } from './store.js';

/** Limits per workspace. Defaults are the service's: 60 a minute, 1,440 a day. */
export interface EmulatorLimits {
  perMinute?: number;
  perDay?: number;
  /** Length of the per-minute window in ms. Default 60,000. */
  windowMs?: number;
  /** Length of the per-day window in ms. Default 86,400,000. */
  dayMs?: number;
}

/** One request as the emulator saw it; what it answered is in the {@link AnswerRecord} fields. */
export interface RequestLogRecord extends AnswerRecord {
  /**
   * When the request arrived (emulator clock, ms). An authenticated request that was not
   * refused by the limits was counted against them at this time.
   */
  at: number;
  method: string;
  path: string;
  /** ms from arrival to the answer (or the dropped connection). */
  ms?: number;
  /** For `POST /api/entry`: the slug sent, when one was. */
  slug?: string;
  /** Workspace identifier, when the token was valid. */
  workspace?: string;
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
  /**
   * Waits out {@link EmulatorFaults.latencyMs} and a stalled create; default a real timer.
   * Tests pass one that tells them a stall began and ends it when they say.
   */
  sleep?: (ms: number) => Promise<void>;
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
  /**
   * The image host, a second origin (`media-host.ts`): `http://127.0.0.1:PORT/media`, what
   * `{{media}}` in seeded content became. Its files are `store.media`.
   */
  mediaUrl: string;
  /** Every request the image host answered. */
  mediaLog: MediaRequest[];
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/**
 * Starts the emulator: `await startEmulator({ port: 0, store: await loadSeed('demo') })`.
 * @throws the server's `listen` error (`EADDRINUSE`, `EADDRNOTAVAIL`).
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const now = options.now ?? Date.now;
  const store = options.store ?? new EmulatorStore(now);
  const limits = options.limits ?? {};
  const faults: EmulatorFaults = options.faults ?? {};
  const wait = options.sleep ?? ((ms: number) => sleep(ms));
  const log: RequestLogRecord[] = [];
  const events = new EventEmitter<{ request: [RequestLogRecord]; response: [RequestLogRecord] }>();
  const perMinute = limits.perMinute ?? 60;
  const perDay = limits.perDay ?? 1440;
  /** Each workspace's counted requests: their arrival times in the minute and in the day, oldest first. */
  const counted = new Map<string, { minute: number[]; day: number[] }>();
  let createCount = 0;

  /** ms until one more request fits `limit` in a sliding window of `windowMs` (0: now); drops the times that left it. */
  const waitMs = (times: number[], limit: number, windowMs: number): number => {
    const t = now();
    while (times.length > 0 && times[0]! <= t - windowMs) times.shift();
    return times.length < limit ? 0 : times[0]! + windowMs - t;
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: `emulator error: ${(err as Error).message}` }));
      }
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = now();
    const url = new URL(req.url ?? '/', 'http://emulator');
    const method = req.method ?? 'GET';
    const record: RequestLogRecord = { at, method, path: url.pathname + url.search, status: 0 };
    log.push(record);
    events.emit('request', record);
    const r = new Responder(res, record, () => {
      record.ms = now() - at;
      events.emit('response', record);
    });

    if (url.pathname === '/login') {
      return r.raw(200, { 'content-type': 'text/html; charset=utf-8' }, '<!doctype html><html><head><title>Log in</title></head><body><form method="post"><input name="email"><input type="password" name="password"></form></body></html>');
    }
    if (!url.pathname.startsWith('/api/')) return r.reply(404, { message: 'Not Found' });

    // Public endpoint 4.
    const latestMatch = /^\/api\/entries\/latest\/([^/]+)$/.exec(url.pathname);
    if (latestMatch && method === 'GET') {
      await readBody(req);
      if (faults.latencyMs) await wait(faults.latencyMs);
      const ws = store.byIdentifier(decodeURIComponent(latestMatch[1]!));
      const latest = ws ? store.latest(ws) : undefined;
      if (!latest) return r.reply(404, { message: 'No entry found.' });
      return r.reply(200, latest, { 'x-ratelimit-limit': String(perMinute), 'x-ratelimit-remaining': String(perMinute) });
    }

    // Authentication (spec "Authentication"; "Errors" rule 4).
    const auth = req.headers.authorization ?? '';
    const token = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim();
    const ws = token ? store.byToken(token) : undefined;
    if (!ws) {
      await readBody(req);
      const wantsJson = /application\/json/i.test(req.headers.accept ?? '');
      if (!wantsJson) return r.raw(302, { location: '/login' }, '');
      return r.reply(401, { message: 'Unauthenticated.' });
    }
    record.workspace = ws.info.identifier;

    // Rate limits (spec "Limits"), counted on arrival as a throttling middleware does:
    // before the request body is read and before any processing time.
    let c = counted.get(ws.info.identifier);
    if (!c) counted.set(ws.info.identifier, (c = { minute: [], day: [] }));
    const minuteWait = waitMs(c.minute, perMinute, limits.windowMs ?? 60_000);
    const dayWait = waitMs(c.day, perDay, limits.dayMs ?? 86_400_000);
    // The rate-limit headers, as counted or as a fault sends them.
    const rateHeaders = (remaining: number) => ({
      'x-ratelimit-limit': faults.rateLimitLimitHeader ?? String(perMinute),
      'x-ratelimit-remaining': faults.rateLimitRemainingHeader ?? String(remaining),
    });
    if (minuteWait > 0 || dayWait > 0) {
      await readBody(req);
      const asked = dayWait > 0 && faults.dayLimitRetryAfter !== undefined ? faults.dayLimitRetryAfter : Math.max(1, Math.ceil(Math.max(minuteWait, dayWait) / 1000));
      return r.reply(429, { message: 'Too Many Attempts.' }, { 'retry-after': String(asked), ...rateHeaders(0) });
    }
    c.minute.push(now());
    c.day.push(now());
    const rl = rateHeaders(Math.max(0, perMinute - c.minute.length));
    const body = await readBody(req);
    if (method === 'POST' && url.pathname === '/api/entry') record.slug = slugOf(body);

    // Injected faults that answer before anything is done.
    if (faults.rateLimitBurst && faults.rateLimitBurst > 0) {
      faults.rateLimitBurst--;
      record.fault = '429-burst';
      const retryAfter: Record<string, string> = faults.rateLimitBurstNoRetryAfter ? {} : { 'retry-after': String(faults.rateLimitBurstRetryAfter ?? 1) };
      return r.reply(429, { message: 'Too Many Attempts.' }, { ...retryAfter, ...rateHeaders(0) });
    }
    if (faults.pause) await faults.pause.catch(() => undefined);
    if (faults.latencyMs) await wait(faults.latencyMs);
    if (await answerInjectedFault(faults, r, rl)) return;
    await routeApi({ method, url, body, ws, store, faults, sleep: wait, r, rateLimitHeaders: rl, nextCreate: () => ++createCount });
  }

  const api = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  const media = await startMediaHost(store, options.host ?? '127.0.0.1');
  return {
    url: api.origin,
    port: api.port,
    store,
    log,
    faults,
    events,
    mediaUrl: media.url,
    mediaLog: media.log,
    close: async () => {
      await Promise.all([media.close(), api.close()]);
    },
  };
}

/** The request body as text (UTF-8, as sent: a byte order mark is kept). */
async function readBody(req: IncomingMessage): Promise<string> {
  return (await buffer(req)).toString('utf8');
}

/** The `slug` of a create request's JSON body, for the request log. */
function slugOf(body: string): string | undefined {
  try {
    const slug = (JSON.parse(body) as { slug?: unknown } | null)?.slug;
    return typeof slug === 'string' ? slug : undefined;
  } catch {
    return undefined;
  }
}
