/**
 * `changelog-sync subscribers list [--json | --csv]`: the work is in
 * `src/subscribers/list.ts`; here it is run against the configured service and reported,
 * every address masked in GitHub Actions (`subscribers/privacy.ts`).
 */
import { ChangelogSyncError } from '../../core/errors.js';
import type { Config } from '../../core/config.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import { subscribersToCsv } from '../../subscribers/csv-write.js';
import { listSubscribers, type SubscriberList } from '../../subscribers/list.js';
import { emailDisplay, withMaskedErrors, type EmailDisplay } from '../../subscribers/privacy.js';
import { withContext } from '../context.js';
import { plural, printable } from './report.js';

/** Human table of a subscriber list. */
export function formatList(list: SubscriberList, display: EmailDisplay): string {
  const lines = [`${plural(list.count, 'subscriber')} (${list.verified.toLocaleString('en-US')} verified, ${list.unverified.toLocaleString('en-US')} unverified)`];
  if (list.count === 0) return lines[0]!;
  const rows = list.subscribers.map((s) => [printable(display.email(s.email)), printable(s.name ?? ''), s.verified_at?.slice(0, 10) ?? 'unverified', s.created_at?.slice(0, 10) ?? '']);
  const head = ['email', 'name', 'verified', 'created'];
  const widths = head.map((h, i) => Math.min(40, Math.max(h.length, ...rows.map((r) => r[i]!.length))));
  const row = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
  lines.push(row(head), ...rows.map(row));
  return lines.join('\n');
}

/**
 * `subscribers list [--json | --csv]`: every subscriber (email, name, verified_at,
 * created_at) as a table, one JSON document (global `--json`) or CSV.
 */
export async function subscribersListCommand(config: Config, reporter: Reporter, options: { csv?: boolean } = {}): Promise<ExitCode> {
  const display = emailDisplay(reporter.actions);
  return withMaskedErrors(display, async () => {
    if (options.csv && reporter.json) throw new ChangelogSyncError('E_USAGE', '--csv and --json exclude each other', { hint: 'pass one of them' });
    return withContext(config, reporter, {}, async (client) => {
      const list = await listSubscribers(client);
      if (options.csv) reporter.result(subscribersToCsv(list.subscribers, { email: display.email }).replace(/\n$/, ''), undefined);
      else reporter.result(display.text(formatList(list, display)), display.data({ command: 'subscribers list', ...list, masked: display.masked }));
      return EXIT.OK;
    });
  });
}
