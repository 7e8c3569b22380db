/**
 * The data thread of a cold build of a large mirror: a worker thread started with the build
 * (data-thread-worker.ts) that shares the site data's work with the build's own thread, on
 * the other core. It loads the entry parser and the body renderer at once, while the build
 * starts; then it reads and parses the newer half of the entry files while this thread
 * reads the older half ({@link readEntryFilesBeside}), and renders bodies from the last one
 * back while this thread renders from the first on (body-render.ts). What it does is what
 * this thread would do, with the same modules: the site is the same byte for byte.
 *
 * @module
 */
import { join } from 'node:path';
import { COMPILED_BUILD, startThread } from '../../core/threads.js';
import { readEntryFiles, type IndexedFile } from '../../entry/entry-files.js';
import type { EntryFile } from '../../entry/entry-file.js';
import type { BodyRenderer } from '../render/body-render.js';

/** What the data thread is asked: entry files to read and parse, or bodies to render. */
type DataWork = { kind: 'parse'; contentDir: string; rels: string[] } | { kind: 'render'; bodies: string[] };

/** A task for the data thread: its work, and the number its answer carries. */
export type DataTask = DataWork & { id: number };

/**
 * An entry file as the data thread read it: its bytes, their hash, and the parsed file; or
 * `failed` when it could not be read or parsed (this thread then reads it again, for the
 * error itself: errors do not cross threads whole).
 */
export type ParsedFile = { rel: string; failed: true } | { rel: string; failed?: undefined; hash: string; raw: Uint8Array; entry: EntryFile };

/** What a task gives: the bodies' HTML, or the files read. */
interface DataResult {
  html?: string[];
  files?: ParsedFile[];
}

/** The data thread's answer: the task's result, or the message of the error that stopped it. */
export type DataReply = { id: number; error: string } | (DataResult & { id: number; error?: undefined });

/** A data thread started by {@link startDataThread}. */
export interface DataThread extends BodyRenderer {
  /**
   * Reads and parses entry files on the thread.
   * @throws {Error} when the thread has stopped.
   */
  parse(contentDir: string, rels: string[]): Promise<ParsedFile[]>;
  /** Ends the thread; tasks still pending are rejected. */
  close(): Promise<void>;
}

/**
 * Starts the data thread. It loads the entry parser (yaml, zod) and the body renderer
 * (marked, sanitize-html, highlight.js) at once, so that it is ready by the time the build
 * has listed the entry files. Only from compiled code (TypeScript sources, as in tests,
 * have no compiled worker): undefined otherwise. The caller closes it.
 */
export function startDataThread(): DataThread | undefined {
  if (!COMPILED_BUILD) return undefined;
  const worker = startThread(new URL('./data-thread-worker.js', import.meta.url), undefined);
  const pending = new Map<number, { resolve(result: DataResult): void; reject(err: Error): void }>();
  let stopped: Error | undefined;
  let nextId = 0;
  const stop = (err: Error) => {
    stopped ??= err;
    for (const p of pending.values()) p.reject(stopped);
    pending.clear();
  };
  worker.on('message', (reply: DataReply) => {
    const p = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.error !== undefined) p?.reject(new Error(reply.error));
    else p?.resolve(reply);
  });
  worker.on('error', (err) => stop(err));
  worker.on('exit', (code) => stop(new Error(`the data thread stopped (exit code ${code})`)));
  const send = (work: DataWork): Promise<DataResult> => {
    if (stopped) return Promise.reject(stopped);
    const id = nextId++;
    return new Promise<DataResult>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...work, id } satisfies DataTask);
    });
  };
  return {
    async parse(contentDir, rels) {
      return (await send({ kind: 'parse', contentDir, rels })).files ?? [];
    },
    async render(bodies) {
      return (await send({ kind: 'render', bodies })).html ?? [];
    },
    async close() {
      await worker.terminate();
    },
  };
}

/**
 * Reads and parses entry files as {@link readEntryFiles} does, the newer half on the data
 * thread while this thread reads the older half. A file the thread could not read or parse
 * is read again here, for its error; should the thread stop, its half is read here.
 *
 * @param rels the entry files, relative to the content directory, in their listed order.
 * @returns the files in the order of `rels`.
 */
export async function readEntryFilesBeside(contentDir: string, rels: string[], thread: DataThread | undefined): Promise<IndexedFile[]> {
  if (!thread || rels.length < 2) return readEntryFiles(contentDir, rels);
  const half = Math.floor(rels.length / 2);
  const theirs = thread.parse(contentDir, rels.slice(half)).catch(() => undefined);
  const ours = await readEntryFiles(contentDir, rels.slice(0, half));
  const parsed = await theirs;
  if (!parsed) return [...ours, ...(await readEntryFiles(contentDir, rels.slice(half)))];
  const failed = await readEntryFiles(
    contentDir,
    parsed.filter((f) => f.failed).map((f) => f.rel),
  );
  const again = new Map(failed.map((f) => [f.rel, f]));
  return [
    ...ours,
    ...parsed.map((f): IndexedFile => {
      if (f.failed) return again.get(f.rel)!;
      return { rel: f.rel, abs: join(contentDir, f.rel), hash: f.hash, raw: Buffer.from(f.raw.buffer, f.raw.byteOffset, f.raw.byteLength), entry: f.entry };
    }),
  ];
}
