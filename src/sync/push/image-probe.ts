/**
 * Whether an image URL a new entry will show answers (issue 24, item 2): push asks the
 * site (or wherever the image is) before it creates an entry, because an entry, once
 * created, can never be fixed. These requests go to the image's host, not to the service:
 * they are outside the service's rate budget.
 *
 * A URL is live when a `GET` answers 200 with an `image/*` content type, within a time
 * limit for the whole exchange, after at most {@link MAX_REDIRECTS} redirects, each to
 * `http:` or `https:` only. The body is not read (the connection is closed).
 *
 * @module
 */
import { statSync } from 'node:fs';
import { join, posix } from 'node:path';
import pLimit from 'p-limit';
import { request, type Dispatcher } from 'undici';
import { IMAGES_DIR } from '../../core/content-layout.js';

/** Redirects followed at most. */
export const MAX_REDIRECTS = 5;

/** Default time limit of one URL's check, redirects included, in ms. */
const DEFAULT_PROBE_TIMEOUT_MS = 10_000;

/** The outcome of a check: live, or why not (a sentence that names what answered). */
export type ProbeOutcome = { live: true } | { live: false; reason: string };

/** Options of {@link probeImage}. */
export interface ProbeOptions {
  /** Time limit in ms for the whole check, redirects included. Default {@link DEFAULT_PROBE_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** undici dispatcher (tests); default undici's global one. */
  dispatcher?: Dispatcher;
}

/**
 * Checks that an image URL answers 200 with an image content type.
 * @param url an absolute URL.
 * @returns never throws: a failure is an outcome with its reason.
 */
export async function probeImage(url: string, options: ProbeOptions = {}): Promise<ProbeOutcome> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    return { live: false, reason: 'not a URL' };
  }
  // One limit for the whole check; cleared when it ends, so that nothing is aborted after.
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    return await follow(current, abort.signal, timeoutMs, options.dispatcher);
  } finally {
    clearTimeout(timer);
  }
}

/** The requests of one check, redirect after redirect. */
async function follow(start: URL, signal: AbortSignal, timeoutMs: number, dispatcher: Dispatcher | undefined): Promise<ProbeOutcome> {
  let current = start;
  for (let hop = 0; ; hop++) {
    if (current.protocol !== 'http:' && current.protocol !== 'https:') return { live: false, reason: `${hop === 0 ? 'not' : 'redirected to'} an http or https URL (${current.protocol})` };
    let res: Dispatcher.ResponseData;
    try {
      res = await request(current, { method: 'GET', signal, headers: { accept: 'image/*' }, dispatcher });
    } catch (err) {
      return { live: false, reason: signal.aborted ? `no answer within ${timeoutMs} ms` : `no answer (${(err as Error).message})` };
    }
    // The body is not needed: close it rather than download the image.
    res.body.on('error', () => undefined);
    res.body.destroy();
    const location = header(res.headers.location);
    if (res.statusCode >= 300 && res.statusCode < 400 && location !== undefined) {
      if (hop >= MAX_REDIRECTS) return { live: false, reason: `more than ${MAX_REDIRECTS} redirects` };
      try {
        current = new URL(location, current);
      } catch {
        return { live: false, reason: `a redirect to something that is not a URL (HTTP ${res.statusCode})` };
      }
      continue;
    }
    if (res.statusCode !== 200) return { live: false, reason: `HTTP ${res.statusCode}` };
    const type = (header(res.headers['content-type']) ?? '').split(';')[0]!.trim().toLowerCase();
    if (!type.startsWith('image/')) return { live: false, reason: `HTTP 200 but not an image (content type ${JSON.stringify(type || 'none')})` };
    return { live: true };
  }
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Checks several image URLs, each once, at most `concurrency` at a time.
 * @param probe the check of one URL (default {@link probeImage}).
 * @returns the outcome of each URL.
 */
export async function probeImages(urls: Iterable<string>, probe: (url: string) => Promise<ProbeOutcome> = (u) => probeImage(u), concurrency = 4): Promise<Map<string, ProbeOutcome>> {
  const limit = pLimit(concurrency);
  const unique = [...new Set(urls)];
  const outcomes = await Promise.all(unique.map((u) => limit(() => probe(u))));
  return new Map(unique.map((u, i) => [u, outcomes[i]!]));
}

/**
 * A check of image URLs against the files the site will publish, for a site that is not
 * served while push runs: the demo, whose site is the local preview built after its push.
 * A URL under `siteUrl`'s `images/` is live when the file is in one of `roots`' `images/`;
 * any other URL is checked over HTTP ({@link probeImage}).
 *
 * @param siteUrl the site's URL, with a trailing slash.
 * @param roots folders holding `images/` (the content and site directories).
 */
export function localImageProbe(siteUrl: string, roots: readonly string[]): (url: string) => Promise<ProbeOutcome> {
  const images = new URL(`${IMAGES_DIR}/`, siteUrl).href;
  return async (url) => {
    if (!url.startsWith(images)) return probeImage(url);
    let rel: string;
    try {
      rel = posix.normalize(decodeURIComponent(new URL(url).pathname.slice(new URL(images).pathname.length)));
    } catch {
      return { live: false, reason: 'not a URL' };
    }
    const found = !rel.startsWith('..') && roots.some((r) => {
      try {
        return statSync(join(r, IMAGES_DIR, rel)).isFile();
      } catch {
        return false;
      }
    });
    return found ? { live: true } : { live: false, reason: `no ${IMAGES_DIR}/${rel} to publish` };
  };
}
