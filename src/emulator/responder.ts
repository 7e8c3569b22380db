/**
 * The emulator's answer to one request: JSON, raw text, or a dropped connection, each
 * recorded in the request's log record before the `response` event fires.
 */
import type { ServerResponse } from 'node:http';

/** The parts of a request's log record that its answer fills in (see `RequestLogRecord`). */
export interface AnswerRecord {
  /** The status answered (0 while the request is being handled). */
  status: number;
  /** Which fault answered it, if one did. */
  fault?: string;
  /** True when the connection was dropped instead of answering. */
  dropped?: boolean;
  /** For an `oversizeBodyMb` fault's answer: the bytes of its body written before the client went away (or all). */
  bytesSent?: number;
}

/** Answers one request. Call exactly one of `reply`, `raw`, `drop` or (after streaming) `done`. */
export interface Responder {
  res: ServerResponse;
  record: AnswerRecord;
  /** A JSON body with `status` (and `content-length`). */
  reply(status: number, payload: unknown, headers?: Record<string, string>): void;
  /** A body as is. */
  raw(status: number, headers: Record<string, string>, text: string): void;
  /** Destroys the connection instead of answering. */
  drop(): void;
  /** Marks the request answered after its body was streamed by other means. */
  done(): void;
}

/** A responder for `res` that records into `record` and calls `onDone` once the answer is out (or the connection dropped). */
export function createResponder(res: ServerResponse, record: AnswerRecord, onDone: () => void): Responder {
  return {
    res,
    record,
    reply(status, payload, headers = {}) {
      record.status = status;
      sendJson(res, status, payload, headers);
      onDone();
    },
    raw(status, headers, text) {
      record.status = status;
      res.writeHead(status, headers);
      res.end(text);
      onDone();
    },
    drop() {
      record.dropped = true;
      res.socket?.destroy();
      onDone();
    },
    done: onDone,
  };
}

/** Writes `payload` as a JSON body with its length. */
export function sendJson(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
