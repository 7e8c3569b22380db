/**
 * Eleventy's input, staged: the packaged templates (`site/`) with a team's `site/` laid over
 * them file by file, in a fresh temporary folder per build or preview. A team that changes
 * only `_includes/footer.njk` keeps every other template up to date.
 */
import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve, sep } from 'node:path';
import { PACKAGED_SITE_DIR } from '../../core/config.js';
import { filesUnder } from '../cache/file-list.js';
import { escapeRegExp } from '../../core/file-error.js';

/** Eleventy's input: the team's site over the packaged one, and how to name a staged file's source. */
export interface SiteInput {
  dir: string;
  /** The team's files Eleventy may render or include (relative to the staged input and to the team's site): all but `_includes/css/`, images and `widget.js`. */
  teamTemplates: string[];
  /** Rewrites staged paths in a message to the file they came from. */
  explain(message: string): string;
  cleanup(): Promise<void>;
}

/**
 * Stages Eleventy's input in a fresh temporary directory, which also keeps Eleventy's process-wide
 * layout cache (keyed by path) from serving an earlier build's layouts when one process builds twice.
 * @param siteDir the configured site directory (the packaged one, or a team's).
 */
export async function prepareSiteInput(siteDir: string): Promise<SiteInput> {
  const stage = await mkdtemp(join(tmpdir(), 'changelog-site-'));
  const layers = existsSync(PACKAGED_SITE_DIR) ? [PACKAGED_SITE_DIR, siteDir] : [siteDir];
  const origin = new Map<string, string>();
  const teamTemplates: string[] = [];
  for (const layer of layers) {
    if (!existsSync(layer)) continue;
    await cp(layer, stage, { recursive: true, force: true });
    for (const f of await filesUnder(layer)) {
      const rel = relative(layer, f);
      origin.set(rel, f);
      if (resolve(layer) !== resolve(PACKAGED_SITE_DIR) && !NOT_TEMPLATES.test(rel.split(sep).join('/'))) teamTemplates.push(rel);
    }
  }
  return {
    dir: stage,
    teamTemplates,
    explain(message) {
      // Eleventy names files relative to its working directory (the process's), or absolute:
      // either form ends in the stage's own name, which mkdtemp made unique.
      const stageName = escapeRegExp(basename(stage));
      return message.replace(new RegExp(`(?:[^\\s:'"\`()]*/)?${stageName}/([^\\s:'"\`()]+)`, 'g'), (whole, rel: string) => origin.get(rel) ?? whole);
    },
    cleanup: () => rm(stage, { recursive: true, force: true }),
  };
}

/** Files of a site that Eleventy neither renders nor includes: the stylesheet's parts, images (copied) and the widget (copied). */
const NOT_TEMPLATES = /^(?:_includes\/css\/|images\/|widget\.js$)/;
