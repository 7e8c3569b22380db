/**
 * `changelog-sync push [--dry-run]`.
 * @module
 */
import type { Config } from '../config.js';
import { push, type PushResult } from '../mirror/push.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import { openContext } from './context.js';

/** Human summary of a push. */
export function formatPush(r: PushResult): string {
  const lines: string[] = [];
  if (r.dryRun) {
    lines.push(`Plan: push ${r.plan.length - r.deferred.length} new entr${r.plan.length - r.deferred.length === 1 ? 'y' : 'ies'} in ${r.requests} request(s), oldest first${r.deferred.length ? `; ${r.deferred.length} deferred (daily budget)` : ''}`);
    r.plan.slice(0, r.plan.length - r.deferred.length).forEach((p, i) => lines.push(`  ${i + 1}. ${p.file} -> POST /api/entry slug=${p.slug}${r.schedule[i] ? ` at ${r.schedule[i]}` : ''}`));
  } else {
    lines.push(`Pushed ${r.pushed.length} new entr${r.pushed.length === 1 ? 'y' : 'ies'}${r.pending.length ? `, ${r.pending.length} pending` : ''}${r.rejected.length ? `, ${r.rejected.length} rejected` : ''}`);
    for (const p of r.pushed) lines.push(`  + ${p.file} -> ${p.identifier} (${p.status ?? 'created'})${p.reconciled ? ' [found on the service, not sent again]' : ''}`);
  }
  for (const p of r.pushed.filter(() => r.dryRun)) lines.push(`  = ${p.file}: already on the service as ${p.identifier}; would record it`);
  for (const p of r.pending) lines.push(`  … ${p.file}: ${p.reason}`);
  for (const p of r.rejected) lines.push(`  x ${p.reason}`);
  return lines.join('\n');
}

/** Exit code of a push result: invalid files > deferred > ok. */
export function pushExitCode(r: PushResult): ExitCode {
  if (r.rejected.length > 0) return EXIT.INVALID;
  if (r.deferred.length > 0) return EXIT.DEFERRED;
  if (r.pending.length > 0) return EXIT.ERROR;
  return EXIT.OK;
}

/** Runs a push and reports it. */
export async function pushCommand(config: Config, reporter: Reporter, options: { dryRun?: boolean } = {}): Promise<ExitCode> {
  const ctx = await openContext(config, reporter);
  try {
    reporter.info(`Pushing new entries to ${config.baseUrl} ...`);
    const result = await push({ client: ctx.client, contentDir: config.contentDir, stateDir: config.stateDir, dryRun: options.dryRun, concurrency: config.concurrency });
    reporter.result(formatPush(result), { command: 'push', ...result });
    return pushExitCode(result);
  } finally {
    await ctx.close();
  }
}
