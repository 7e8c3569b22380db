/**
 * Whether an image URL a new entry will show answers, asked before the entry is created (it can
 * never be fixed). To the image's host, outside the service's rate budget, through the guarded
 * fetcher (`src/service/guarded-fetch.ts`): the URL is content a writer wrote. Live: a `GET`
 * answers 200 `image/*` within the time limit after at most {@link MAX_REDIRECTS} redirects;
 * the body is not read.
 */
import { statSync } from 'node:fs';
import { join, posix } from 'node:path';
import pLimit from 'p-limit';
import { IMAGES_DIR } from '../../core/content-layout.js';
import { GuardedFetcher, type Lookup } from '../../service/guarded-fetch.js';

/** Redirects followed at most. */
export const MAX_REDIRECTS = 5;

/** Default time limit of one URL's check, redirects included, in ms. */
const DEFAULT_PROBE_TIMEOUT_MS = 10_000;

/** The outcome of a check: live, or why not. `refused`: the guarded fetcher's rules refuse it, so it never answers. */
export type ProbeOutcome = { live: true } | { live: false; reason: string; refused?: boolean };

/** Options of {@link probeImage}. */
export interface ProbeOptions {
  /** Time limit in ms for the whole check, redirects included. Default {@link DEFAULT_PROBE_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Allows loopback addresses: only for a service on loopback (guarded-fetch.ts `allowsLoopback`). Default false. */
  allowLoopback?: boolean;
  /** Resolves host names (tests); default `dns.lookup`. */
  lookup?: Lookup;
}

/** Checks that an image URL (absolute) answers 200 with an image type. Never throws: a failure is an outcome. */
export async function probeImage(url: string, options: ProbeOptions = {}): Promise<ProbeOutcome> {
  const fetcher = new GuardedFetcher({ limits: { timeoutMs: options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS, maxRedirects: MAX_REDIRECTS }, allowLoopback: options.allowLoopback, lookup: options.lookup });
  try {
    const got = await fetcher.get(url, { accept: 'image/*', allows: (mime) => mime.startsWith('image/'), what: 'an image', readBody: false });
    if (got.ok) return { live: true };
    return got.refused ? { live: false, reason: got.reason, refused: true } : { live: false, reason: got.reason };
  } finally {
    await fetcher.close();
  }
}

/** Checks several image URLs, each once, at most `concurrency` at a time (default check {@link probeImage}). */
export async function probeImages(urls: Iterable<string>, probe: (url: string) => Promise<ProbeOutcome> = (u) => probeImage(u), concurrency = 4): Promise<Map<string, ProbeOutcome>> {
  const limit = pLimit(concurrency);
  const unique = [...new Set(urls)];
  const outcomes = await Promise.all(unique.map((u) => limit(() => probe(u))));
  return new Map(unique.map((u, i) => [u, outcomes[i]!]));
}

/**
 * A check against the files the site will publish, for a site not served while push runs (the
 * demo, built after its push): a URL under `siteUrl`'s `images/` is live when the file is in one
 * of `roots`' `images/`; any other URL goes over HTTP ({@link probeImage} with `options`).
 */
export function localImageProbe(siteUrl: string, roots: readonly string[], options: ProbeOptions = {}): (url: string) => Promise<ProbeOutcome> {
  const images = new URL(`${IMAGES_DIR}/`, siteUrl).href;
  return async (url) => {
    if (!url.startsWith(images)) return probeImage(url, options);
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
