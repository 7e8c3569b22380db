/**
 * The pull step of `pull`, `sync` and `dev --pull`: its progress bar (its engine options come
 * from `options/engine-options.ts`), its human summary and its exit code.
 */
import type { ChangelogClient } from '../../service/client.js';
import type { Config } from '../../core/config.js';
import type { PullResult } from '../../sync/pull/pull-run.js';
import { startServiceReads } from '../../service/reads.js';
import type { MediaFailure } from '../../sync/pull/media-mirror.js';
import { engineOptions, type PullCall } from '../../options/engine-options.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';

/** Options of a pull step ({@link pullWithProgress}; `pull`, `sync`, `dev --pull`). */
export type PullStepOptions = Pick<PullCall, 'prune' | 'force' | 'dryRun'>;

/** Human summary of a pull. */
export function formatPull(r: PullResult): string {
  const verb = r.dryRun ? 'would ' : '';
  const lines = [
    `${r.dryRun ? 'Plan: pull' : 'Pulled'} ${r.remote} entries from "${r.workspace.name}": ${r.created.length} new, ${r.updated.length + r.renamed.length} updated, ${r.unchanged} unchanged${r.adopted.length ? `, ${r.adopted.length} adopted` : ''}${r.restored.length ? `, ${r.restored.length} restored` : ''}`,
  ];
  for (const i of r.created) lines.push(`  + ${i.file}${verb ? ' (would write)' : ''}`);
  for (const i of r.updated) lines.push(`  ~ ${i.file}`);
  for (const i of r.renamed) lines.push(`  > ${i.from} -> ${i.file}`);
  for (const i of r.conflicts) lines.push(`  ! conflict: ${i.file} was edited locally and changed remotely; local kept, remote version in .changelog/${i.conflictFile}`);
  for (const i of r.localEdits) lines.push(`  ! local edits cannot be pushed (the interface has no update): ${i.file}`);
  for (const i of r.remoteGone)
    lines.push(`  - gone remotely: ${i.file}${i.pruned ? (r.dryRun ? ' (would remove)' : ' (removed)') : i.edited ? ' (edited locally: kept)' : ' (kept; pass --prune to remove)'}`);
  for (const i of r.adopted) lines.push(`  = ${i.file}: pushed earlier, now recorded`);
  for (const b of r.bound) lines.push(`  = ${b.file}: ${r.dryRun ? 'would be ' : ''}bound to its entry ${b.identifier} (${b.how === 'reconciled' ? 'a push that did not finish' : 'created from this file earlier'}); not mirrored twice`);
  for (const d of r.repaired) lines.push(`  ! ${d.file}: carried the identifier ${d.identifier} of ${d.kept}; ${d.action === 'rebound' ? 'kept in its place (that file is gone)' : d.action === 'removed' ? 'removed (a copy left by an interrupted pull)' : `has local edits: moved to .changelog/${d.parkedAs}`}`);
  for (const c of r.slugConflicts) lines.push(`  ! slug conflict: ${c.reason}`);
  for (const i of r.failed) lines.push(`  x ${i.file}: not converted (${i.reason}); left as it was, the next pull tries again`);
  for (const p of r.problems) lines.push(`  x ${p.file}${p.line ? `:${p.line}` : ''}: ${p.message} (file left alone)`);
  for (const n of r.notes ?? []) lines.push(`  note: ${n}`);
  lines.push(...formatMedia(r));
  return lines.join('\n');
}

/** The image lines of a pull's summary (docs/sync.md#images): each failed image once, with its entries. */
function formatMedia(r: PullResult): string[] {
  const m = r.media;
  const lines: string[] = [];
  if (m.fetched > 0 || m.written.length > 0) {
    const deferred = m.deferred.length > 0 ? `, ${m.deferred.length} left for the next pull` : '';
    lines.push(r.dryRun ? `  images: would download ${m.fetched}` : `  images: ${m.fetched - m.deferred.length} downloaded, ${m.written.length} new in content/media/, ${m.failed.length} not downloaded${deferred}`);
  }
  for (const i of m.rewritten) lines.push(`  ~ ${i.file}: names its mirrored images${r.dryRun ? ' (would rewrite)' : ''}`);
  for (const s of m.sanitized) lines.push(`  note: image ${s.url}: an SVG, stored without ${s.removed.slice(0, 5).join(', ')}${s.removed.length > 5 ? ` and ${s.removed.length - 5} more` : ''}`);
  for (const f of m.failed) {
    lines.push(`  ! image not downloaded: ${f.url}${entriesText(f.entries)}: ${f.reason}; the entry keeps the remote URL (tried again in a day)`);
  }
  for (const f of m.deferred) lines.push(`  ! image not downloaded yet: ${f.url}${entriesText(f.entries)}: ${f.reason}; the entry keeps the remote URL (the next pull tries again)`);
  return lines;
}

/** ` in entries/x.md ("Title") and 2 more entries`: where an image is shown. */
function entriesText(entries: MediaFailure['entries']): string {
  const [first, ...more] = entries;
  return first ? ` in ${first.file} ("${first.title}")${more.length ? ` and ${more.length} more entr${more.length === 1 ? 'y' : 'ies'}` : ''}` : '';
}

/** Exit code of a pull: entries not converted > conflicts > ok. */
export function pullExitCode(r: PullResult): ExitCode {
  if (r.failed.length > 0) return EXIT.ERROR;
  if (r.conflicts.length > 0 || r.slugConflicts.length > 0) return EXIT.CONFLICT;
  return EXIT.OK;
}

/**
 * Pulls with a progress bar; the caller has checked the project's paths (`assertInsideProject`).
 * @throws {ChangelogSyncError} see `pull` (`sync/pull/pull.ts`); its reads have ended by then.
 */
export async function pullWithProgress(client: ChangelogClient, config: Config, reporter: Reporter, options: PullStepOptions = {}): Promise<PullResult> {
  reporter.info(`Pulling from ${config.baseUrl} ...`);
  // The reads go out before the mirror's modules load: loading them overlaps the wait.
  const reads = startServiceReads(client);
  try {
    const { pull } = await import('../../sync/pull/pull.js');
    const bar = reporter.counter('pull');
    return await pull({ client, reads, ...engineOptions.pull(config, { ...options, onConverted: bar.update }) }).finally(() => bar.stop());
  } finally {
    // A pull stopped by one read's failure (or the lock) closes the others before it returns.
    await reads.cancel();
  }
}
