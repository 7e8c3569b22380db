/**
 * `changelog-sync status`: read-only, the plan of what `pull` and `push` would do now:
 * remote-only entries (new or missing locally), updates and renames, conflicts, local
 * edits that cannot be pushed, entries gone remotely, new local entries to push, and
 * what the day's request budget defers. Writes no file but the request ledger (the
 * requests it makes count against the day's budget).
 */
import type { Config } from '../../core/config.js';
import { syncWorkspace, type SyncResult } from '../../sync/sync-job.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import { withContext } from '../context.js';
import { engineOptions } from '../../options/engine-options.js';

/** Human form of a status. */
function formatStatus(s: SyncResult): string {
  const { pull: p, push: q } = s;
  const lines: string[] = [`Workspace "${p.workspace.name}": ${p.remote} remote entries, ${p.unchanged + p.localEdits.length} mirrored and up to date`];
  const section = (title: string, items: string[]) => {
    if (items.length === 0) return;
    lines.push(`${title} (${items.length}):`);
    for (const i of items) lines.push(`  ${i}`);
  };
  section('Remote only: pull would write', [...p.created.map((i) => `+ ${i.file}  "${i.title}"`), ...p.restored.map((i) => `+ ${i.file}  "${i.title}" (missing locally)`)]);
  section('Changed remotely: pull would update', [...p.updated.map((i) => `~ ${i.file}`), ...p.renamed.map((i) => `> ${i.from} -> ${i.file}`)]);
  section('Conflicts: changed remotely and edited locally', p.conflicts.map((i) => `! ${i.file} (the remote version would go to .changelog/${i.conflictFile})`));
  section('Local edits that cannot be pushed (the interface has no update)', p.localEdits.map((i) => `! ${i.file}`));
  section('Gone remotely', p.remoteGone.map((i) => `- ${i.file}${i.edited ? ' (edited locally: kept even with --prune)' : ' (pull --prune removes it)'}`));
  section('Adopted: pushed, status to record', p.adopted.map((i) => `= ${i.file}`));
  const sendable = q.plan.filter((x) => !q.deferred.some((d) => d.file === x.file));
  section('New local entries: push would create', sendable.map((x) => `+ ${x.file} -> slug ${x.slug}${x.is_published ? ' (published)' : ' (draft)'}`));
  section('Deferred: the day\'s request budget is spent; the next run sends them', q.deferred.map((x) => `… ${x.file}`));
  section('Invalid: not sent until fixed', q.rejected.map((x) => `x ${x.reason}`));
  section('Unreadable local files', p.problems.map((x) => `x ${x.file}${x.line ? `:${x.line}` : ''}: ${x.message}`));
  if (lines.length === 1) lines.push('Nothing to do: the mirror and the service agree.');
  return lines.join('\n');
}

/** Runs both plans (dry runs: nothing is written or sent) and reports them. */
export async function statusCommand(config: Config, reporter: Reporter): Promise<ExitCode> {
  return withContext(config, reporter, { dryRun: true }, async (client) => {
    // The sync job's dry run: one workspace read and one listing serve both plans.
    const result = await syncWorkspace({ client, ...engineOptions.status(config) });
    reporter.result(formatStatus(result), { command: 'status', ...result });
    return EXIT.OK;
  });
}
