/**
 * The emulator's authenticated endpoints (docs/service-interface.md#endpoints 1-3 and 5-9), once
 * the server authenticated, counted and faulted the request: answers in the envelope, validation
 * failures as Laravel's 422 `{message, errors}`.
 */
import { hitsNth, type EmulatorFaults } from './faults.js';
import type { Responder } from './responder.js';
import { EmulatorValidationError, entryResource, type EmulatorStore, type EmulatorWorkspace } from './store.js';

const VERSION = '1.0';

/** One authenticated API request, ready to be routed. */
export interface ApiRequest {
  method: string;
  url: URL;
  /** The request body as text. */
  body: string;
  /** The workspace the token belongs to. */
  ws: EmulatorWorkspace;
  store: EmulatorStore;
  /** The faults in force (read at each step, as tests change them mid-run). */
  faults: EmulatorFaults;
  /** Waits a stall out (a real timer, or a test's). */
  sleep: (ms: number) => Promise<void>;
  r: Responder;
  /** The `x-ratelimit-*` headers every answer carries. */
  rateLimitHeaders: Record<string, string>;
  /** Counts a `POST /api/entry` and returns its number, 1-based. */
  nextCreate: () => number;
}

/**
 * Answers one authenticated API request.
 * @throws what the store throws besides validation errors (the server answers 500).
 */
export async function routeApi(q: ApiRequest): Promise<void> {
  const { method, url, ws, store, r, rateLimitHeaders: rl } = q;
  const ok = (data: unknown, status = 200) => r.reply(status, { success: true, version: VERSION, data }, rl);
  const path = url.pathname;
  try {
    if (method === 'GET' && path === '/api/workspace') return ok(ws.info);
    if (method === 'GET' && path === '/api/entries') {
      const limit = url.searchParams.has('limit') ? Number(url.searchParams.get('limit')) : undefined;
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
        throw new EmulatorValidationError({ limit: ['The limit field must be a positive integer.'] });
      }
      return ok(store.listEntries(ws, limit).map((e) => entryResource(e, ws)));
    }
    const one = /^\/api\/entries\/([^/]+)$/.exec(path);
    if (method === 'GET' && one) {
      const entry = ws.entries.find((e) => e.identifier === decodeURIComponent(one[1]!));
      if (!entry) return r.reply(404, { message: 'Entry not found.' }, rl);
      return ok(entryResource(entry, ws));
    }
    if (method === 'POST' && path === '/api/entry') return await createEntry(q, ok);
    if (method === 'GET' && path === '/api/tags') return ok(ws.tags);
    if (method === 'GET' && path === '/api/subscribers') return ok(ws.subscribers);
    if (method === 'POST' && path === '/api/subscribers') return ok(store.addSubscribers(ws, parseJson(q.body)));
    if (method === 'DELETE' && path === '/api/subscribers') return ok(store.removeSubscribers(ws, parseJson(q.body)));
    return r.reply(404, { message: 'Not Found' }, rl);
  } catch (err) {
    if (err instanceof EmulatorValidationError) return r.reply(422, { message: err.message, errors: err.errors }, rl);
    if (err instanceof SyntaxError) return r.reply(400, { message: 'Malformed JSON body.' }, rl);
    throw err;
  }
}

/** Endpoint 5, with the faults of a create: stall, drop or 500 after the commit, the answer's shape. */
async function createEntry(q: ApiRequest, ok: (data: unknown, status?: number) => void): Promise<void> {
  const { faults, r, rateLimitHeaders: rl } = q;
  const json = parseJson(q.body);
  const n = q.nextCreate();
  const stall = hitsNth(faults.stallCreateEvery, n);
  if (stall) r.record.fault = faults.stallAfterCommit ? 'stall-after-commit' : 'stall-before-commit';
  if (stall && !faults.stallAfterCommit) await q.sleep(faults.stallMs ?? 1000);
  const entry = q.store.createEntry(q.ws, json);
  if (stall && faults.stallAfterCommit) await q.sleep(faults.stallMs ?? 1000);
  const drop =
    hitsNth(faults.dropAfterCommitEvery, n) ||
    (faults.dropAfterCommitProbability !== undefined && (faults.random ?? Math.random)() < faults.dropAfterCommitProbability);
  if (drop) {
    r.record.status = 201;
    r.record.fault = 'drop-after-commit';
    return r.drop();
  }
  if (hitsNth(faults.errorAfterCommitEvery, n)) {
    r.record.fault = '500-after-commit';
    return r.reply(500, { message: 'Server Error' }, rl);
  }
  switch (faults.createResponse ?? 'entry') {
    case 'identifier':
      return ok({ identifier: entry.identifier }, 201);
    case 'success-only':
      return r.reply(201, { success: true, version: VERSION }, rl);
    case 'empty':
      return r.raw(201, rl, '');
    default:
      return ok(entryResource(entry, q.ws), 201);
  }
}

function parseJson(body: string): unknown {
  return body.trim() === '' ? {} : JSON.parse(body);
}
