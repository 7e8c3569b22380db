/**
 * `changelog-sync init`: makes a repository a team's changelog repository (docs/github-actions.md,
 * "A team's repository"): `package.json` (changelog-sync by a caret range, only what is missing),
 * `changelog.config.json`, the entries' folder, two workflows and `.github/dependabot.yml`
 * (`team-workflows.ts`), `.gitignore` lines, fitted to the repository (`init-fit.ts`); templates
 * with `--templates`. It never overwrites a file (it shows the difference) and says what is left
 * (`npm install`, for the lock file `npm ci` needs).
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { writeFileAtomic } from '../../core/atomic-file.js';
import { CONFIG_FILE, PACKAGE_ROOT, PACKAGED_SITE_DIR, toolVersion, type Config } from '../../core/config.js';
import { EXIT, type ExitCode } from '../output/exit-codes.js';
import type { Reporter } from '../output/reporter.js';
import { PACKAGE_NAME } from '../../core/project-command.js';
import { differences, gitignoreAddition, gitignoreLines, repositoryFit, type RepositoryFit } from '../init-fit.js';
import { teamPackage } from '../team-package.js';
import { fitTeamFile, TEAM_FILES, toolWorkflows, type ToolWorkflows } from '../team-workflows.js';

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
  /** The tool's workflows the team's call: repository and ref. */
  workflows: ToolWorkflows;
  /** What the repository still needs for the workflows to run, one sentence each (empty: nothing). */
  needs: string[];
}

/** Lock files of other package managers, which `npm ci` does not read. */
const OTHER_LOCK_FILES = ['yarn.lock', 'pnpm-lock.yaml', 'bun.lock', 'bun.lockb'];

/**
 * What the team's workflows need at `root` that `init` does not write: the lock file (`npm ci`,
 * setup-node's cache key) and a registry dependency on changelog-sync that Dependabot can move.
 * @returns one sentence per missing thing, each with the command that adds it.
 */
async function adoptionNeeds(root: string, version: string): Promise<string[]> {
  const needs: string[] = [];
  let pkg: { dependencies?: Record<string, unknown>; devDependencies?: Record<string, unknown> } | undefined;
  try {
    pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as typeof pkg;
  } catch {
    pkg = undefined; // none yet (a dry run), or not JSON: init has said so
  }
  const spec = pkg?.dependencies?.[PACKAGE_NAME] ?? pkg?.devDependencies?.[PACKAGE_NAME];
  if (typeof spec === 'string' && /^(file|link|git|git\+[a-z]+|https?):/.test(spec)) {
    needs.push(`package.json installs ${PACKAGE_NAME} from ${spec}, which Dependabot cannot update: run \`npm install ${PACKAGE_NAME}@^${version}\` and commit package.json and package-lock.json (and delete the packed file)`);
  }
  if (!existsSync(join(root, 'package-lock.json')) && !existsSync(join(root, 'npm-shrinkwrap.json'))) {
    const other = OTHER_LOCK_FILES.find((f) => existsSync(join(root, f)));
    needs.push(
      other
        ? `package-lock.json: missing (this repository has ${other}). The workflows install with \`npm ci\`: run \`npm install\` and commit package-lock.json`
        : 'package-lock.json: missing. The workflows install with `npm ci`: run `npm install`, which writes it, and commit it',
    );
  }
  return needs;
}

/** The configuration file init writes: the folders as configured (the workflows name the same) and the schema reference for editors. */
function initialConfig(fit: Pick<RepositoryFit, 'contentDir' | 'stateDir' | 'outputDir'>): string {
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

/** The files of a folder, recursively, as paths relative to it with `/` separators. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join('/')).sort();
}

/**
 * Sets the project up in `config.root`, fitted to its default branch and folders; an existing file
 * is kept and a difference reported; package.json gets only what it lacks.
 * @param options.templates also copy the packaged site templates into the project's `site/`, to override them.
 * @throws {ChangelogSyncError} `E_CONFIG` when a configured folder cannot be written into the workflows ({@link repositoryFit});
 *   `E_FILE` when package.json is no JSON object ({@link teamPackage}).
 */
export async function initCommand(config: Config, reporter: Reporter, options: { dryRun?: boolean; templates?: boolean } = {}): Promise<ExitCode> {
  const root = config.root;
  const fit = repositoryFit(config);
  const tool = toolWorkflows(PACKAGE_ROOT);
  const version = toolVersion();
  const result: InitResult = { created: [], updated: [], kept: [], differs: [], dryRun: Boolean(options.dryRun), fit, workflows: tool, needs: [] };
  const additions = new Map<string, string[]>();
  const write = async (rel: string, text: string) => {
    if (options.dryRun) return;
    const abs = join(root, rel);
    await mkdir(dirname(abs), { recursive: true });
    await writeFileAtomic(abs, text);
  };
  const create = async (rel: string, text: string) => {
    const abs = join(root, rel);
    if (existsSync(abs)) {
      result.kept.push(rel);
      const d = differences(await readFile(abs, 'utf8'), text);
      if (d.lines.length > 0) result.differs.push({ file: rel, added: d.added, removed: d.removed, diff: d.lines });
      return;
    }
    result.created.push(rel);
    await write(rel, text);
  };

  // package.json first: a broken one stops init before it writes anything.
  const pkgPath = join(root, 'package.json');
  const pkg = teamPackage(root, existsSync(pkgPath) ? await readFile(pkgPath, 'utf8') : undefined, version);
  await create(CONFIG_FILE, initialConfig(fit));
  for (const f of TEAM_FILES) await create(f.target, fitTeamFile(f.template, await readFile(join(PACKAGE_ROOT, f.template), 'utf8'), fit, tool));
  // With workspaces each product's folder is made by its first pull (content/<key>/entries/).
  if (!config.workspaces) await create(`${fit.contentDir}/entries/.gitkeep`, '');
  if (pkg.text === undefined) result.kept.push('package.json');
  else {
    (existsSync(pkgPath) ? result.updated : result.created).push('package.json');
    additions.set('package.json', pkg.added);
    await write('package.json', pkg.text);
  }

  const gitignore = join(root, '.gitignore');
  const current = existsSync(gitignore) ? await readFile(gitignore, 'utf8') : undefined;
  const ignore = gitignoreAddition(current, gitignoreLines(fit));
  if (ignore) {
    (current === undefined ? result.created : result.updated).push('.gitignore');
    additions.set('.gitignore', ignore.added);
    await write('.gitignore', ignore.text);
  } else result.kept.push('.gitignore');

  if (options.templates) {
    const siteDir = config.siteDir === PACKAGED_SITE_DIR ? join(root, 'site') : config.siteDir;
    const prefix = relative(root, siteDir).split(sep).join('/');
    for (const f of await filesUnder(PACKAGED_SITE_DIR)) await create(`${prefix}/${f}`, await readFile(join(PACKAGED_SITE_DIR, f), 'utf8'));
  }

  result.needs = await adoptionNeeds(root, version);
  reporter.result(formatInit(result, additions), { command: 'init', ...result });
  return EXIT.OK;
}

const BRANCH_SOURCE: Record<RepositoryFit['branchSource'], string> = {
  origin: "origin's default branch",
  current: 'the branch checked out',
  default: 'no branch found: the default',
};

/** The human report of {@link initCommand}. */
function formatInit(result: InitResult, additions: Map<string, string[]>): string {
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
    ...result.updated.map((f) => `  ~ ${f} (${dryRun ? 'would add' : 'added'} ${(additions.get(f) ?? []).join(', ')})`),
    ...kept,
    '',
    `Fitted to this repository: the push trigger on ${fit.branch} (${BRANCH_SOURCE[fit.branchSource]}); entries in ${fit.contentDir}/, sync state in ${fit.stateDir}/, the site built into ${fit.outputDir}/.`,
    `The workflows call ${result.workflows.repository}'s at ${result.workflows.version ? `v${result.workflows.version} (commit ${result.workflows.ref})` : `${result.workflows.ref} (the major tag: this changelog-sync is no release)`}; Dependabot moves them.`,
    ...(result.differs.length > 0 ? ['Files that exist are never overwritten: to take init\'s version of one, delete it and run init again.'] : []),
    ...(result.needs.length > 0 ? ['', 'Still to do here:', ...result.needs.map((n) => `  ! ${n}`)] : []),
    '',
    `Next: add the secret${fit.workspaceSecrets ? `s ${fit.workspaceSecrets.join(', ')} (one per workspace)` : ' CHANGELOG_TOKEN'} and the variable CHANGELOG_BASE_URL to the repository,`,
    'set Settings > Pages > Source to "GitHub Actions", and commit. See README: "Running it in GitHub Actions".',
  ];
  return `${dryRun ? 'Plan' : 'Set up changelog-sync'}:\n${lines.join('\n')}`;
}
