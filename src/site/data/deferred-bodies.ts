/**
 * Site data whose bodies come later: on Eleventy's thread, when the build sent it the data
 * before the bodies were rendered (site/build/build-early.ts). Each entry's `html` and
 * `excerpt`, and `latest.content`, become getters that read the body when a template first
 * asks for it, waiting for it if need be; everything else in the data is already there.
 *
 * @module
 */
import type { SiteData, SiteEntry } from './site-model.js';

/** What an entry's body gives the templates: its sanitised HTML and its excerpt. */
export type EntryBody = [html: string, excerpt: string];

/** An entry's body, to send. */
export function entryBody(entry: SiteEntry): EntryBody {
  return [entry.html, entry.excerpt];
}

/**
 * Makes the bodies of `data` read from `read` (by the entry's index in `data.entries`): every
 * entry's `html` and `excerpt`, and `latest.content` (the newest entry's HTML). Call it before
 * the data is used; the rest of the data is left as it is.
 *
 * @param read gives an entry's body, waiting for it (core/sync-channel.ts `syncChannelReader`);
 *   what it throws (the build failed) reaches the template that asked.
 */
export function deferBodies(data: SiteData, read: (index: number) => EntryBody): void {
  const getter = (get: () => string): PropertyDescriptor => ({ get, enumerable: true, configurable: true });
  data.entries.forEach((entry, i) => {
    Object.defineProperty(entry, 'html', getter(() => read(i)[0]));
    Object.defineProperty(entry, 'excerpt', getter(() => read(i)[1]));
  });
  // `latest.content` reads the newest entry's body (latest.ts), but data sent to a thread
  // arrives with the value it had when sent: the body's reader again.
  if ('content' in data.latest) Object.defineProperty(data.latest, 'content', getter(() => read(0)[0]));
}
