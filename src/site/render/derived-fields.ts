/**
 * What the site data derives from each entry's body, kept between a preview's rebuilds
 * (preview-data.ts) so that a save derives again only the entries it changed. A one-shot build
 * keeps none: site-data.ts calls the derivations themselves.
 */
import { feedContentDigest } from '../data/feed-item.js';
import { excerptOf } from './html-text.js';

/** The per-entry derivations of `loadSiteData` (site-data.ts), with the functions' own contracts. */
export interface EntryDerivations {
  /** {@link excerptOf}: the first paragraph's text of an entry's sanitised HTML. */
  excerpt(html: string): string;
  /** {@link feedContentDigest}: the feed content digest of an entry's title and body. */
  digest(title: string, body: string): string;
}

/** The derivations made afresh each time: a one-shot build's, and what {@link DerivedFields} falls back on. */
export const FRESH_DERIVATIONS: EntryDerivations = { excerpt: excerptOf, digest: feedContentDigest };

/**
 * {@link EntryDerivations} kept by the strings they are derived from: the excerpt by the
 * rendered HTML, the digest by the body and the title. Held bodies and cached HTML are the same
 * strings from one rebuild to the next, so a lookup hashes each once. Holds the values used by
 * the last two rebuilds only ({@link DerivedFields.rebuild}): a long preview does not grow it.
 */
export class DerivedFields implements EntryDerivations {
  private last = { excerpts: new Map<string, string>(), digests: new Map<string, { title: string; digest: string }>() };
  private now = { excerpts: new Map<string, string>(), digests: new Map<string, { title: string; digest: string }>() };

  /** @param fresh how a value not kept is derived (tests count the calls). */
  constructor(private readonly fresh: EntryDerivations = FRESH_DERIVATIONS) {}

  /** A rebuild starts: values not used since the one before are dropped. */
  rebuild(): void {
    this.last = this.now;
    this.now = { excerpts: new Map(), digests: new Map() };
  }

  excerpt(html: string): string {
    const excerpt = this.now.excerpts.get(html) ?? this.last.excerpts.get(html) ?? this.fresh.excerpt(html);
    this.now.excerpts.set(html, excerpt);
    return excerpt;
  }

  digest(title: string, body: string): string {
    let kept = this.now.digests.get(body) ?? this.last.digests.get(body);
    if (kept?.title !== title) kept = { title, digest: this.fresh.digest(title, body) };
    this.now.digests.set(body, kept);
    return kept.digest;
  }
}
