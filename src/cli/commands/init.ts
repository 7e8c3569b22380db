/**
 * `changelog-sync init`: adds the configuration file, the workflows and `.gitignore`
 * lines to an existing repository, fitted to it (`init-fit.ts`: its default branch, the
 * configured folders), without overwriting anything that exists (run again, it shows what
 * an existing file differs in from what it would write), and says
 * what the workflows need that it does not write: they install with `npm ci` (which needs
 * `package.json` listing changelog-sync and a `package-lock.json`) and run
 * `npx --no-install changelog-sync`.
 * @module
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../../core/atomic-file.js';
import { CONFIG_FILE, PACKAGE_ROOT, type Config } from '../../core/config.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import { PACKAGE_NAME } from '../../core/project-command.js';
import { differences, fitWorkflow, gitignoreLines, repositoryFit, type RepositoryFit } from '../init-fit.js';

/** Workflows copied from the package, fitted to the repository (`init-fit.ts`). */
export const WORKFLOWS = ['.github/workflows/changelog.yml', '.github/workflows/changelog-check.yml'];

/** An existing file that differs from what init would write (kept as it is). */
export interface InitDifference {
  file: string;
  added: number;
  removed: number;
  /** Unified-diff hunks: `-` the file as it is, `+` what init would write. */
  diff: string[];
}

/** What init did (or would do) with each file. */
export interface InitResult {
  created: string[];
  updated: string[];
  /** Existing files kept: the same as init would write, or in {@link InitResult.differs}. */
  kept: string[];
  /** Existing files that differ from what init would write now (kept, never overwritten). */
  differs: InitDifference[];
  dryRun: boolean;
  /** The repository as init fitted the files to it: the branch and the folders. */
  fit: RepositoryFit;
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

/**
 * The configuration file init writes: the folders as configured (the defaults, or what
 * `CHANGELOG_*_DIR` say: the workflows name the same ones), and the schema reference for editors.
 */
export function initialConfig(fit: Pick<RepositoryFit, 'contentDir' | 'stateDir' | 'outputDir'> = { contentDir: 'content', stateDir: '.changelog', outputDir: '_site' }): string {
  return `${JSON.stringify(
    {
      $schema: './node_modules/changelog-sync/changelog.config.schema.json',
      contentDir: fit.contentDir,
      stateDir: fit.stateDir,
      outputDir: fit.outputDir,
    },
    null,
    2,
  )}\n`;
}

/** The `.tgz` package.json installs changelog-sync from (`file:changelog-sync-0.1.0.tgz`), if it does. */
async function installedTgz(root: string): Promise<string | undefined> {
  try {
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, unknown>; devDependencies?: Record<string, unknown> };
    const spec = pkg.dependencies?.[PACKAGE_NAME] ?? pkg.devDependencies?.[PACKAGE_NAME];
    const m = typeof spec === 'string' ? /^file:(?:\.\/)?([^/]+\.tgz)$/.exec(spec) : null;
    return m?.[1];
  } catch {
    return undefined;
  }
}

/**
 * Sets the project up in `config.root`, fitted to it (its default branch, the configured
 * folders). Existing files are kept; each that differs from what init would write is
 * reported with the difference.
 *
 * @throws {ChangelogSyncError} `E_CONFIG` when a configured folder cannot be written into the workflows ({@link repositoryFit}).
 */
export async function initCommand(config: Config, reporter: Reporter, options: { dryRun?: boolean } = {}): Promise<ExitCode> {
  const root = config.root;
  const fit = repositoryFit(config);
  const result: InitResult = { created: [], updated: [], kept: [], differs: [], dryRun: Boolean(options.dryRun), fit, needs: [] };
  const create = async (rel: string, text: string) => {
    const abs = join(root, rel);
    if (existsSync(abs)) {
      result.kept.push(rel);
      const d = differences(await readFile(abs, 'utf8'), text);
      if (d.lines.length > 0) result.differs.push({ file: rel, added: d.added, removed: d.removed, diff: d.lines });
      return;
    }
    result.created.push(rel);
    if (options.dryRun) return;
    await mkdir(dirname(abs), { recursive: true });
    await writeFileAtomic(abs, text);
  };

  await create(CONFIG_FILE, initialConfig(fit));
  for (const wf of WORKFLOWS) await create(wf, fitWorkflow(wf, await readFile(join(PACKAGE_ROOT, wf), 'utf8'), fit));
  await create(`${fit.contentDir}/entries/.gitkeep`, '');

  const gitignore = join(root, '.gitignore');
  const current = existsSync(gitignore) ? await readFile(gitignore, 'utf8') : undefined;
  const have = new Set((current ?? '').split(/\r?\n/).map((l) => l.trim()));
  const missing = gitignoreLines(fit, await installedTgz(root)).filter((l) => !have.has(l) && !have.has(l.replace(/\/$/, '')));
  if (missing.length > 0) {
    (current === undefined ? result.created : result.updated).push('.gitignore');
    if (!options.dryRun) {
      const prefix = current === undefined || current === '' || current.endsWith('\n') ? current ?? '' : `${current}\n`;
      await writeFileAtomic(gitignore, `${prefix}# changelog-sync\n${missing.join('\n')}\n`);
    }
  } else result.kept.push('.gitignore');

  result.needs = await adoptionNeeds(root);
  reporter.result(formatInit(result, missing), { command: 'init', ...result });
  return EXIT.OK;
}

const BRANCH_SOURCE: Record<RepositoryFit['branchSource'], string> = {
  origin: "origin's default branch",
  current: 'the branch checked out',
  default: 'no branch found: the default',
};

/** The human report of {@link initCommand}. */
function formatInit(result: InitResult, missingLines: string[]): string {
  const dryRun = result.dryRun;
  const { fit } = result;
  const differs = new Map(result.differs.map((d) => [d.file, d]));
  const kept = result.kept.flatMap((f) => {
    const d = differs.get(f);
    if (!d) return [`  = ${f} (exists, kept)`];
    return [`  * ${f} (exists, kept; differs from what init would write: ${d.added} lines added, ${d.removed} removed; - yours, + init's):`, ...d.diff.map((l) => `      ${l}`)];
  });
  const lines = [
    ...result.created.map((f) => `  + ${f} (${dryRun ? 'would create' : 'created'})`),
    ...result.updated.map((f) => `  ~ ${f} (${dryRun ? 'would add' : 'added'} ${missingLines.join(' ')})`),
    ...kept,
    '',
    `Fitted to this repository: the push trigger on ${fit.branch} (${BRANCH_SOURCE[fit.branchSource]}); entries in ${fit.contentDir}/, sync state in ${fit.stateDir}/, the site built into ${fit.outputDir}/.`,
    ...(result.differs.length > 0 ? ['Files that exist are never overwritten: to take init\'s version of one, delete it and run init again.'] : []),
    ...(result.needs.length > 0 ? ['', 'The workflows also need:', ...result.needs.map((n) => `  ! ${n}`)] : []),
    '',
    'Next: add the secret CHANGELOG_TOKEN and the variable CHANGELOG_BASE_URL to the repository,',
    'set Settings > Pages > Source to "GitHub Actions", and commit. See README: "Running it in GitHub Actions".',
  ];
  return `${dryRun ? 'Plan' : 'Set up changelog-sync'}:\n${lines.join('\n')}`;
}
