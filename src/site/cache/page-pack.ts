/**
 * The page cache's pack file, `pages.pack` (page-cache.ts): its format, its checked index, and
 * two bulk jobs, copying its pages into the site and writing a new pack. Format: a JSON line (the
 * format, fingerprint, page count, the index's length and CRC-32, the data's length), a line with
 * the index (each page's key, length, CRC-32, in byte order), then the pages' bytes.
 *
 * No page is held in memory: the jobs read a page at a time into one reused buffer, as memory
 * first touched costs (reading a large pack whole was mostly the kernel mapping fresh pages), and
 * write thousands of small files with synchronous calls: one system call each, not a promise.
 */
import { closeSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { otherFormatNote } from './cache-file.js';

/** The format of `pages.pack`; another one is ignored. */
const FORMAT = 'changelog-sync-page-cache/1';

/** The bytes read at a time when the index's checksums are checked, and the most read at once when a pack is copied. */
const CHUNK_BYTES = 1 << 20;

/** The longest first line a pack may have. */
const MAX_HEADER_BYTES = 64 * 1024;

/** Where a page is in the pack: its bytes start at `offset` (from the start of the file) and are `length` long, with this CRC-32. */
export interface PackedPage {
  offset: number;
  length: number;
  crc: number;
}

interface Header {
  format?: unknown;
  fingerprint?: unknown;
  pages?: unknown;
  indexLength?: unknown;
  indexCrc?: unknown;
  dataLength?: unknown;
}

/** An index row: key, length, CRC-32. */
type Row = [string, number, number];

/** A pack that cannot be used, with the reason to tell ("it is corrupt (...)"). */
export class UnusablePackError extends Error {
  /** True when the pack was made by a build of another fingerprint (its message is then empty). */
  readonly foreign: boolean;
  constructor(reason: string, options: { foreign?: boolean } = {}) {
    super(reason);
    this.foreign = options.foreign ?? false;
  }
}

const unusable = (reason: string) => new UnusablePackError(reason);

/**
 * Reads the index of the pack `file` and checks it whole (header, fingerprint, lengths, the CRC-32
 * of the index and of every page), so that no page of a damaged pack is ever used.
 * @returns where each page is, by key.
 * @throws {UnusablePackError} when the pack is of another format or fingerprint, or corrupt
 *   or incomplete (the message says which); the file system's error when it cannot be read.
 */
export async function readPackIndex(file: string, fingerprint: string): Promise<Map<string, PackedPage>> {
  const handle = await open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(size, 1)));
    const start = chunk.subarray(0, (await handle.read(chunk, 0, Math.min(chunk.length, MAX_HEADER_BYTES), 0)).bytesRead);
    const firstLine = start.indexOf(0x0a);
    if (firstLine < 0) throw unusable('it is corrupt or incomplete (no header)');
    let header: Header;
    try {
      header = JSON.parse(start.subarray(0, firstLine).toString('utf8')) as Header;
    } catch (err) {
      throw unusable(`it is corrupt (${(err as Error).message})`);
    }
    if (header.format !== FORMAT) throw unusable(otherFormatNote(header.format, FORMAT));
    // Made by a build of another fingerprint: unusable, and the build says once what differed (build-cache.ts `cacheChangeNote`).
    if (header.fingerprint !== fingerprint) throw new UnusablePackError('', { foreign: true });
    const indexStart = firstLine + 1;
    const dataStart = indexStart + Number(header.indexLength);
    if (!Number.isSafeInteger(header.indexLength) || size !== dataStart + Number(header.dataLength)) throw unusable('it is corrupt or incomplete (its length does not match)');
    const indexBytes = Buffer.allocUnsafe(Number(header.indexLength));
    if ((await handle.read(indexBytes, 0, indexBytes.length, indexStart)).bytesRead !== indexBytes.length) throw unusable('it is corrupt or incomplete (its index is cut short)');
    if (crc32(indexBytes) !== header.indexCrc) throw unusable('it is corrupt (the checksum of its index does not match)');
    let rows: Row[];
    try {
      rows = JSON.parse(indexBytes.toString('utf8')) as Row[];
    } catch (err) {
      throw unusable(`it is corrupt (${(err as Error).message})`);
    }
    if (!Array.isArray(rows) || rows.length !== header.pages) throw unusable('it is corrupt (its index does not match its header)');
    const pages = new Map<string, PackedPage>();
    // The chunk holds the file's bytes [chunkStart, chunkEnd).
    let chunkStart = 0;
    let chunkEnd = 0;
    let offset = dataStart;
    for (const row of rows) {
      const [key, length, crc] = Array.isArray(row) ? row : [];
      if (typeof key !== 'string' || !Number.isSafeInteger(length) || length! < 0 || offset + length! > size) throw unusable('it is corrupt (its index does not match its pages)');
      let sum = 0;
      for (let at = offset; at < offset + length!; ) {
        if (at >= chunkEnd) {
          const { bytesRead } = await handle.read(chunk, 0, chunk.length, at);
          if (bytesRead === 0) throw unusable('it is corrupt or incomplete (its length does not match)');
          [chunkStart, chunkEnd] = [at, at + bytesRead];
        }
        const end = Math.min(offset + length!, chunkEnd);
        sum = crc32(chunk.subarray(at - chunkStart, end - chunkStart), sum);
        at = end;
      }
      if (sum !== crc) throw unusable('it is corrupt (the checksum of a page does not match)');
      pages.set(key, { offset, length: length!, crc });
      offset += length!;
    }
    if (offset !== size) throw unusable('it is corrupt (its index does not match its pages)');
    return pages;
  } finally {
    await handle.close();
  }
}

/** A page to copy from a pack into the site: where it goes (relative to the output folder) and where it is. */
interface PageCopy extends PackedPage {
  path: string;
}

/**
 * Writes pages of a pack into the site, making their folders; each page's checksum is checked again
 * as it is read, as the pack is not trusted to have stayed as it was when opened.
 * @param pack the pack (absolute).
 * @param outputDir the site being built (absolute).
 * @throws {Error} the file system's error of the first page that could not be read or
 *   written; an error naming the page when its bytes are not those the index was checked with.
 */
export function copyPages(pack: string, outputDir: string, pages: readonly PageCopy[]): void {
  const fd = openSync(pack, 'r');
  try {
    let buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    const made = new Set<string>();
    for (const page of pages) {
      if (page.length > buffer.length) buffer = Buffer.allocUnsafe(page.length);
      const bytes = buffer.subarray(0, readSync(fd, buffer, 0, page.length, page.offset));
      if (bytes.length !== page.length || crc32(bytes) !== page.crc) throw new Error(`${pack} changed while it was in use (the page for ${page.path}): build again`);
      const path = join(outputDir, page.path);
      const folder = dirname(path);
      if (!made.has(folder)) {
        mkdirSync(folder, { recursive: true });
        made.add(folder);
      }
      writeFileSync(path, bytes);
    }
  } finally {
    closeSync(fd);
  }
}

/** A page of a new pack: from the old pack (where it is there), or a page the build wrote (relative to the output folder). */
export type PackSource = { key: string } & ({ from: 'pack'; page: PackedPage } | { from: 'site'; path: string });

/**
 * Writes a new pack of `pages` (a temporary file beside it, renamed over the old): pages the build
 * wrote read from the site, the others copied from the old pack in runs of up to a megabyte.
 * @param pack the pack to write (absolute); the old one, the pages' source, is read before it is replaced.
 * @param outputDir the site being built (absolute).
 * @param pages the pages in the new pack's order, each key once.
 * @throws {Error} the file system's error; an error naming the pack when a page's bytes
 *   copied from it are not those its index was checked with. The temporary file is removed.
 */
export function writePack(pack: string, fingerprint: string, outputDir: string, pages: readonly PackSource[]): void {
  const temporary = `${pack}.${process.pid}.tmp`;
  const fresh = new Map<string, Buffer>();
  for (const source of pages) if (source.from === 'site') fresh.set(source.key, readFileSync(join(outputDir, source.path)));
  const rows: Row[] = pages.map((source) => {
    if (source.from === 'pack') return [source.key, source.page.length, source.page.crc];
    const bytes = fresh.get(source.key)!;
    return [source.key, bytes.length, crc32(bytes)];
  });
  const index = Buffer.from(JSON.stringify(rows));
  const dataLength = rows.reduce((n, row) => n + row[1], 0);
  const header = JSON.stringify({ format: FORMAT, fingerprint, pages: rows.length, indexLength: index.length, indexCrc: crc32(index), dataLength });
  mkdirSync(dirname(pack), { recursive: true });
  const out = openSync(temporary, 'w');
  let old: number | undefined;
  try {
    writeAll(out, Buffer.from(`${header}\n`));
    writeAll(out, index);
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    for (let i = 0; i < pages.length; ) {
      const source = pages[i]!;
      if (source.from === 'site') {
        writeAll(out, fresh.get(source.key)!);
        i++;
        continue;
      }
      // The pages of the old pack that follow each other there, up to a buffer's worth (one page may be longer).
      old ??= openSync(pack, 'r');
      const start = source.page.offset;
      let end = start + source.page.length;
      const run = [source.page];
      for (let j = i + 1; j < pages.length; j++) {
        const next = pages[j]!;
        if (next.from !== 'pack' || next.page.offset !== end || next.page.offset + next.page.length - start > buffer.length) break;
        run.push(next.page);
        end += next.page.length;
      }
      const bytes = end - start > buffer.length ? Buffer.allocUnsafe(end - start) : buffer.subarray(0, end - start);
      if (readSync(old, bytes, 0, bytes.length, start) !== bytes.length) throw new Error(`${pack} changed while it was in use: build again`);
      for (const page of run) if (crc32(bytes.subarray(page.offset - start, page.offset - start + page.length)) !== page.crc) throw new Error(`${pack} changed while it was in use: build again`);
      writeAll(out, bytes);
      i += run.length;
    }
    closeSync(out);
    renameSync(temporary, pack);
  } catch (err) {
    try {
      closeSync(out);
    } catch {
      // closed already
    }
    rmSync(temporary, { force: true });
    throw err;
  } finally {
    if (old !== undefined) closeSync(old);
  }
}

/** Writes all of `bytes` at the file's position. */
function writeAll(fd: number, bytes: Uint8Array): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
}
