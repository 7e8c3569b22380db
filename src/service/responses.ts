/**
 * Reading a response undici hands over: a header sent twice arrives as an array (the first
 * value counts); a body is read under a cap, so that no answer makes us hold more.
 */
import type { Dispatcher } from 'undici';

/** Response headers as undici gives them. */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** A header's value, the first one when it was sent more than once. */
export function headerString(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Closes a body unread: the abort this raises on it is expected. */
export function drop(res: Pick<Dispatcher.ResponseData, 'body'>): void {
  res.body.on('error', () => undefined).destroy();
}

/**
 * The body, read as a stream and stopped (connection destroyed) once larger than `limit`
 * bytes; a declared `Content-Length` above it is refused unread.
 * @returns the bytes, or what refused them: `declared`, the `Content-Length` over the limit,
 *   or undefined when the bytes read crossed it.
 * @throws the stream's error when the body is cut off.
 */
export async function readCapped(res: Pick<Dispatcher.ResponseData, 'body' | 'headers'>, limit: number): Promise<Buffer | { declared: number | undefined }> {
  const refuse = (declared?: number) => {
    drop(res);
    return { declared };
  };
  const declared = Number(headerString(res.headers, 'content-length'));
  if (Number.isFinite(declared) && declared > limit) return refuse(declared);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return refuse();
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}
