/**
 * `changelog-sync subscribers export [--out FILE.csv]`: the work is in
 * `src/subscribers/export.ts`. In GitHub Actions stdout is the job log: export refuses it
 * there.
 */
import { resolve } from 'node:path';
import { ChangelogSyncError } from '../../core/errors.js';
import type { Config } from '../../core/config.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import { exportSubscribers, type ProtectedDir } from '../../subscribers/export.js';
import { emailDisplay, withMaskedErrors } from '../../subscribers/privacy.js';
import { withContext } from '../context.js';
import { plural } from './report.js';

/** `subscribers export [--out FILE.csv]`: CSV with a header row, formula-injection safe. */
export async function subscribersExportCommand(config: Config, reporter: Reporter, options: { out?: string | undefined } = {}): Promise<ExitCode> {
  const display = emailDisplay(reporter.actions);
  return withMaskedErrors(display, async () => {
    if (options.out === undefined && display.masked) {
      throw new ChangelogSyncError('E_USAGE', 'in GitHub Actions stdout is the job log: subscriber addresses must not be written there', {
        field: '--out',
        hint: 'write the export to a file with --out FILE.csv (and keep the file out of artifacts and commits)',
      });
    }
    if (options.out === undefined && reporter.json) {
      throw new ChangelogSyncError('E_USAGE', 'export writes CSV: --json needs --out FILE.csv (or use subscribers list --json)', { hint: 'pass --out FILE.csv' });
    }
    return withContext(config, reporter, {}, async (client) => {
      // The directories an export must stay out of: what this tool commits or publishes.
      const protectedDirs: ProtectedDir[] = [
        { dir: config.contentDir, what: 'the content directory (committed to git)' },
        { dir: config.stateDir, what: 'the state directory (committed to git)' },
        { dir: config.siteDir, what: 'the site templates (committed to git)' },
        { dir: config.outputDir, what: 'the built site (published)' },
      ];
      // A relative --out is relative to the working directory the CLI was started in.
      const result = await exportSubscribers({ client, out: options.out === undefined ? undefined : resolve(config.cwd, options.out), protectedDirs });
      if (result.csv !== undefined) reporter.result(result.csv.replace(/\n$/, ''), undefined);
      else {
        reporter.result(`Exported ${plural(result.count, 'subscriber')} to ${options.out} (CSV UTF-8 with a header row; readable by you only)`, {
          command: 'subscribers export',
          count: result.count,
          file: result.file,
        });
      }
      return EXIT.OK;
    });
  });
}
