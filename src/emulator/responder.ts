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
export class Responder {
  /**
   * @param record filled in with what was answered.
   * @param done called once the answer is out (or the connection dropped); marks a request answered after its body was streamed by other means.
   */
  constructor(
    readonly res: ServerResponse,
    readonly record: AnswerRecord,
    readonly done: () => void,
  ) {}

  /** A JSON body with `status` (and `content-length`). */
  reply(status: number, payload: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(payload);
    this.raw(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers }, text);
  }

  /** A body as is. */
  raw(status: number, headers: Record<string, string>, text: string): void {
    this.record.status = status;
    this.res.writeHead(status, headers).end(text);
    this.done();
  }

  /** Destroys the connection instead of answering. */
  drop(): void {
    this.record.dropped = true;
    this.res.socket?.destroy();
    this.done();
  }
}
