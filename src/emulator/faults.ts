/**
 * What the emulator does wrong on purpose, for tests that try to break the client
 * (docs/service-interface.md#errors): 5xx, drops after a commit, stalls, latency, 429 bursts,
 * bodies that are not the envelope or too large, and each shape a create's answer may take.
 */
import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { AnswerRecord, Responder } from './responder.js';

/** The shapes of a `POST /api/entry` answer the spec leaves open ("Gaps in the endpoints"). */
export const CREATE_RESPONSE_SHAPES = ['entry', 'identifier', 'success-only', 'empty'] as const;
type CreateResponseShape = (typeof CREATE_RESPONSE_SHAPES)[number];

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
  /** `Retry-After` seconds sent with injected 429s (0 allowed). Default 1. */
  rateLimitBurstRetryAfter?: number;
  /** Send the injected 429s without `Retry-After`. */
  rateLimitBurstNoRetryAfter?: boolean;
  /**
   * `Retry-After` seconds sent when the per-day limit refuses, instead of the time until
   * the day frees a request: a service that answers its daily limit like its minute limit.
   */
  dayLimitRetryAfter?: number;
  /** Sent as `x-ratelimit-limit` on every answer instead of the real limit (any text: `2000000000`, `-1`, `1.5`). */
  rateLimitLimitHeader?: string;
  /** Sent as `x-ratelimit-remaining` on every answer instead of the real count. */
  rateLimitRemainingHeader?: string;
  /** Answer API requests with an HTML page (status 200) instead of JSON. */
  htmlBody?: boolean;
  /** Answer API requests with malformed JSON (status 200). */
  malformedJson?: boolean;
  /** Answer with a valid envelope of this many MB, padded and streamed with backpressure (`bytesSent` logs what went out). */
  oversizeBodyMb?: number;
  /** Send the {@link oversizeBodyMb} body without `Content-Length` (chunked): only the bytes read tell its size. */
  oversizeBodyChunked?: boolean;
  /** What `POST /api/entry` returns: the entry (default), only its identifier, `{success}`, or an empty 201. */
  createResponse?: CreateResponseShape;
  /** Hold every Nth `POST /api/entry` for {@link stallMs} before answering: a client with a shorter timeout gives up meanwhile. */
  stallCreateEvery?: number;
  /** How long a stalled create is held, in ms. Default 1,000. */
  stallMs?: number;
  /** Stall before the entry is committed (default: it appears after the client may have given up) or after (the answer is late). */
  stallAfterCommit?: boolean;
  /**
   * While set, every API request waits (after it was logged and counted) until this
   * promise settles: tests freeze the service at an exact point of a client's run.
   */
  pause?: Promise<unknown>;
  /** Random source for the probabilistic faults (tests pass a seeded one). Default Math.random. */
  random?: () => number;
}

/** Whether a fault set to hit every `every`-th create hits the `n`-th (1-based). */
export function hitsNth(every: number | undefined, n: number): boolean {
  return every !== undefined && every > 0 && n % every === 0;
}

/**
 * Answers an API request by the faults that act before anything is done (after the limits,
 * burst, pause and latency): a 500 by `serverErrorRate`, HTML, malformed JSON, an oversize body.
 * @param headers the rate-limit headers a 500 carries.
 * @returns whether a fault answered.
 */
export async function answerInjectedFault(faults: EmulatorFaults, r: Responder, headers: Record<string, string>): Promise<boolean> {
  if (faults.serverErrorRate && (faults.random ?? Math.random)() < faults.serverErrorRate) {
    r.record.fault = '500';
    r.reply(500, { message: 'Server Error' }, headers);
    return true;
  }
  if (faults.htmlBody) {
    r.record.fault = 'html';
    r.raw(200, { 'content-type': 'text/html; charset=utf-8' }, '<!doctype html><html><body><h1>Welcome</h1></body></html>');
    return true;
  }
  if (faults.malformedJson) {
    r.record.fault = 'malformed-json';
    r.raw(200, { 'content-type': 'application/json' }, '{"success": true, "data": [');
    return true;
  }
  if (faults.oversizeBodyMb) {
    r.record.fault = 'oversize-body';
    r.record.status = 200;
    await streamOversizeBody(r.res, Math.round(faults.oversizeBodyMb * 2 ** 20), faults.oversizeBodyChunked === true, r.record);
    r.done();
    return true;
  }
  return false;
}

/** Writes a 200 envelope of exactly `total` bytes chunk by chunk as the client takes them; stops when it goes away. */
async function streamOversizeBody(res: ServerResponse, total: number, chunked: boolean, record: AnswerRecord): Promise<void> {
  const head = Buffer.from('{"success":true,"data":[]');
  const tail = Buffer.from('}');
  const pad = Buffer.alloc(64 * 1024, 0x20);
  res.writeHead(200, { 'content-type': 'application/json', ...(chunked ? {} : { 'content-length': String(Math.max(total, head.length + tail.length)) }) });
  const sent = (buf: Buffer): Buffer => {
    record.bytesSent = (record.bytesSent ?? 0) + buf.length;
    return buf;
  };
  function* body(): Generator<Buffer> {
    yield sent(head);
    for (let left = total - head.length - tail.length; left > 0; left -= pad.length) {
      yield sent(left >= pad.length ? pad : pad.subarray(0, left));
    }
    yield sent(tail);
  }
  await pipeline(body(), res).catch(() => (record.dropped = true));
}
