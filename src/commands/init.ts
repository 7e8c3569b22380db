/**
 * `changelog-sync init`: adds the configuration file, the workflows and `.gitignore`
 * lines to an existing repository, without overwriting anything that exists, and says
 * what the workflows need that it does not write: they install with `npm ci` (which needs
 * `package.json` listing changelog-sync and a `package-lock.json`) and run
 * `npx --no-install changelog-sync`.
 * @module
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { CONFIG_FILE, PACKAGE_ROOT, type Config } from '../config.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import { PACKAGE_NAME } from '../project-command.js';

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
  /** What the repository still needs for the workflows to run, one sentence each (empty: nothing). */
  needs: string[];
}

/** Lock files of other package managers, which `npm ci` does not read. */
const OTHER_LOCK_FILES = ['yarn.lock', 'pnpm-lock.yaml', 'bun.lock', 'bun.lockb'];

/**
 * What the written workflows need of the repository at `root` that `init` does not write
 * itself: `package.json` with changelog-sync among its dependencies (the workflows run
 * `npx --no-install changelog-sync`) and `package-lock.json` (they install with `npm ci`,
 * and `actions/setup-node` caches by it).
 *
 * @returns one sentence per missing thing, each with the command that adds it.
 */
export async function adoptionNeeds(root: string): Promise<string[]> {
  const needs: string[] = [];
  const install = `npm install --save-exact ${PACKAGE_NAME} (or the packed file: npm install ./${PACKAGE_NAME}-<version>.tgz)`;
  let pkg: { name?: unknown; dependencies?: Record<string, unknown>; devDependencies?: Record<string, unknown> } | undefined;
  try {
    pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as typeof pkg;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      needs.push(`package.json cannot be read (${(err as Error).message}): the workflows install with \`npm ci\`, which needs it`);
    } else {
      needs.push(`package.json: missing. The workflows install with \`npm ci\` and run \`npx --no-install ${PACKAGE_NAME}\`: run \`npm init -y\`, then \`${install}\``);
    }
  }
  if (pkg && pkg.name !== PACKAGE_NAME && !(pkg.dependencies && PACKAGE_NAME in pkg.dependencies) && !(pkg.devDependencies && PACKAGE_NAME in pkg.devDependencies)) {
    needs.push(`package.json does not list ${PACKAGE_NAME}: the workflows run \`npx --no-install ${PACKAGE_NAME}\` after \`npm ci\`: run \`${install}\``);
  }
  if (!existsSync(join(root, 'package-lock.json')) && !existsSync(join(root, 'npm-shrinkwrap.json'))) {
    const other = OTHER_LOCK_FILES.find((f) => existsSync(join(root, f)));
    needs.push(
      other
        ? `package-lock.json: missing (this repository has ${other}). The workflows install with \`npm ci\` and setup-node's npm cache: change their install step to your package manager's (and setup-node's \`cache:\`), or run \`npm install\` and commit package-lock.json`
        : 'package-lock.json: missing. The workflows install with `npm ci` and setup-node caches by it: run `npm install` and commit package-lock.json',
    );
  }
  return needs;
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
  const result: InitResult = { created: [], updated: [], kept: [], dryRun: Boolean(options.dryRun), needs: [] };
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

  result.needs = await adoptionNeeds(root);

  const verb = options.dryRun ? 'would create' : 'created';
  const lines = [
    ...result.created.map((f) => `  + ${f} (${verb})`),
    ...result.updated.map((f) => `  ~ ${f} (${options.dryRun ? 'would add' : 'added'} ${missing.join(' ')})`),
    ...result.kept.map((f) => `  = ${f} (exists, kept)`),
    ...(result.needs.length > 0 ? ['', 'The workflows also need:', ...result.needs.map((n) => `  ! ${n}`)] : []),
    '',
    'Next: add the secret CHANGELOG_TOKEN and the variable CHANGELOG_BASE_URL to the repository,',
    'set Settings > Pages > Source to "GitHub Actions", and commit. See README: "Running it in GitHub Actions".',
  ];
  reporter.result(`${options.dryRun ? 'Plan' : 'Set up changelog-sync'}:\n${lines.join('\n')}`, { command: 'init', ...result });
  return EXIT.OK;
}
