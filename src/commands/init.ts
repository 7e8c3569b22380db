/**
 * `changelog-sync init`: adds the configuration file, the workflows and `.gitignore`
 * lines to an existing repository, without overwriting anything that exists.
 * @module
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { CONFIG_FILE, PACKAGE_ROOT, type Config } from '../config.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';

/** Lines `init` makes sure `.gitignore` has. */
export const GITIGNORE_LINES = ['node_modules/', '_site/', '.demo/', '.changelog/lock/', '.changelog/lock.json'];

/** Workflows copied from the package. */
export const WORKFLOWS = ['.github/workflows/changelog.yml', '.github/workflows/changelog-check.yml'];

/** What init did (or would do) with each file. */
export interface InitResult {
  created: string[];
  updated: string[];
  kept: string[];
  dryRun: boolean;
}

/** The configuration file init writes: the defaults, and the schema reference for editors. */
export function initialConfig(): string {
  return `${JSON.stringify(
    {
      $schema: './node_modules/changelog-sync/changelog.config.schema.json',
      contentDir: 'content',
      stateDir: '.changelog',
      outputDir: '_site',
    },
    null,
    2,
  )}\n`;
}

/** Sets the project up in `config.root`. Existing files are kept and reported. */
export async function initCommand(config: Config, reporter: Reporter, options: { dryRun?: boolean } = {}): Promise<ExitCode> {
  const root = config.root;
  const result: InitResult = { created: [], updated: [], kept: [], dryRun: Boolean(options.dryRun) };
  const create = async (rel: string, text: string) => {
    const abs = join(root, rel);
    if (existsSync(abs)) return void result.kept.push(rel);
    result.created.push(rel);
    if (options.dryRun) return;
    await mkdir(dirname(abs), { recursive: true });
    await writeFileAtomic(abs, text);
  };

  await create(CONFIG_FILE, initialConfig());
  for (const wf of WORKFLOWS) await create(wf, await readFile(join(PACKAGE_ROOT, wf), 'utf8'));
  await create(`${relative(root, config.contentDir) || 'content'}/entries/.gitkeep`, '');

  const gitignore = join(root, '.gitignore');
  const current = existsSync(gitignore) ? await readFile(gitignore, 'utf8') : undefined;
  const have = new Set((current ?? '').split(/\r?\n/).map((l) => l.trim()));
  const missing = GITIGNORE_LINES.filter((l) => !have.has(l) && !have.has(l.replace(/\/$/, '')));
  if (missing.length > 0) {
    (current === undefined ? result.created : result.updated).push('.gitignore');
    if (!options.dryRun) {
      const prefix = current === undefined || current === '' || current.endsWith('\n') ? current ?? '' : `${current}\n`;
      await writeFileAtomic(gitignore, `${prefix}# changelog-sync\n${missing.join('\n')}\n`);
    }
  } else result.kept.push('.gitignore');

  const verb = options.dryRun ? 'would create' : 'created';
  const lines = [
    ...result.created.map((f) => `  + ${f} (${verb})`),
    ...result.updated.map((f) => `  ~ ${f} (${options.dryRun ? 'would add' : 'added'} ${missing.join(' ')})`),
    ...result.kept.map((f) => `  = ${f} (exists, kept)`),
    '',
    'Next: add the secret CHANGELOG_TOKEN and the variable CHANGELOG_BASE_URL to the repository,',
    'set Settings > Pages > Source to "GitHub Actions", and commit. See README: "Running it in GitHub Actions".',
  ];
  reporter.result(`${options.dryRun ? 'Plan' : 'Set up changelog-sync'}:\n${lines.join('\n')}`, { command: 'init', ...result });
  return EXIT.OK;
}
