/**
 * Eleventy's run started before the entries' bodies are rendered (build.ts), for a build
 * with no page cache to take pages from (no build cache, or a first build with one: an empty
 * cache folder) whose Eleventy runs on its worker thread: the site data is sent to
 * the thread as soon as it is complete but for the bodies, and each body follows through a
 * channel (core/sync-channel.ts) as it is rendered. Eleventy builds its template map
 * (pagination, permalinks, computed data) while this thread renders the bodies, and a page
 * that reads a body not rendered yet waits for that one (site/data/deferred-bodies.ts).
 *
 * With a page pack in the build cache, the page cache plans the pages from the bodies (a
 * page whose key it has is taken from it, not rendered), and with a search archive the search
 * index plans from them which entries it indexes beside it, which the search page must know
 * (search-bundles.ts): such a build starts Eleventy once the data is complete. A first build
 * with a build cache renders every page and indexes every entry, as a build without one: it
 * starts early, and its pages, bodies and index are saved for the next build as when it
 * starts late.
 *
 * @module
 */
import { openSyncChannel } from '../../core/sync-channel.js';
import { entryBody, type EntryBody } from '../data/deferred-bodies.js';
import type { LoadSiteDataOptions } from '../render/site-data.js';
import type { PreparedBuild } from './build-prepare.js';
import { renderPages, type RenderedPages } from './build-render.js';

/** A render stage started on the site data before its bodies ({@link startEarlyRender}). */
export interface EarlyRender {
  /** What the data load reports to it (`loadSiteData`'s options): the data without bodies, then each body. */
  hooks: Pick<LoadSiteDataOptions, 'onSkeleton' | 'onBody'>;
  /** Tells it that the data load ended: every body was reported. */
  loaded(): void;
  /**
   * The render stage, started by the hooks (renderPages).
   * @throws {ChangelogSyncError} `E_BUILD` as renderPages.
   * @throws {Error} when the data load did not report the site data.
   */
  rendered(): Promise<RenderedPages>;
  /**
   * The data load failed: a page waiting for a body gets an error with `message`, and the
   * run is waited for (its thread may be writing pages). Never rejects.
   */
  abandon(message: string): Promise<void>;
}

/**
 * Starts the render stage early when the build can: no page pack or search archive to plan
 * from the bodies ({@link PreparedBuild.plansFromBodies}), and Eleventy placed on its worker
 * thread (`BuildEleventy.place`, for the entry files: what such a build renders).
 * @returns undefined when the build renders once its data is complete.
 */
export function startEarlyRender(build: PreparedBuild): EarlyRender | undefined {
  if (build.plansFromBodies || !build.eleventy.place(build.entryNames.length)) return undefined;
  const { sender, end } = openSyncChannel<EntryBody>();
  let loaded!: () => void;
  let failed!: (err: Error) => void;
  const complete = new Promise<void>((resolve, reject) => {
    loaded = resolve;
    failed = reject;
  });
  complete.catch(() => undefined); // awaited by a second run only
  let rendering: Promise<RenderedPages> | undefined;
  let pending: Array<[number, EntryBody]> = [];
  const flush = () => {
    sender.send(pending);
    pending = [];
  };
  return {
    hooks: {
      onSkeleton(siteData) {
        rendering = renderPages(build, { siteData, rendering: build.entryNames.length }, true, { bodies: end, complete });
        rendering.catch(() => undefined); // awaited by rendered() or abandon()
      },
      onBody(index, entry) {
        // Sent once the data load's current step ends (a batch of bodies, or an entry's
        // images): one message and one wake-up of the thread a batch, not a body.
        if (pending.length === 0) queueMicrotask(flush);
        pending.push([index, entryBody(entry)]);
      },
    },
    loaded,
    async rendered() {
      if (!rendering) throw new Error('the site data was not reported to the render stage');
      try {
        return await rendering;
      } finally {
        sender.close();
      }
    },
    async abandon(message) {
      sender.fail(message);
      failed(new Error(message));
      await rendering?.catch(() => undefined);
      sender.close();
    },
  };
}
