/**
 * The files `init` writes into a team's `.github/` (docs/github-actions.md, "A team's repository"):
 * two workflows calling the tool's reusable `sync.yml` and `check.yml` at a release, and
 * `dependabot.yml`, which moves that release and the npm package. Templates in `src/cli/team/`; the
 * repository is package.json's `repository`, the release's commit `release.json` (the release workflow writes it).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChangelogSyncError } from '../core/errors.js';
import type { RepositoryFit } from './init-fit.js';

/** The team's workflows and Dependabot configuration: where each is packaged (under the package root) and where init writes it (under the team's root). */
export const TEAM_FILES = [
  { template: 'src/cli/team/changelog.yml', target: '.github/workflows/changelog.yml' },
  { template: 'src/cli/team/changelog-check.yml', target: '.github/workflows/changelog-check.yml' },
  { template: 'src/cli/team/dependabot.yml', target: '.github/dependabot.yml' },
];

/** The tool's workflows as a team's workflow calls them. */
export interface ToolWorkflows {
  /** `owner/name` of the tool's GitHub repository (package.json's `repository`). */
  repository: string;
  /** The git ref of the `uses:` line: a release's commit (40 hex digits), or `v<major>` for a tree that is no release. */
  ref: string;
  /** The version the ref stands for, in the line's comment (`# v1.2.3`); undefined for a major tag. */
  version?: string;
}

/** `owner/name` of a GitHub package.json `repository` (`git+https://github.com/o/n.git`, `git@github.com:o/n.git`, `github:o/n`, `o/n`, or `{ url }`); else undefined. */
export function githubRepository(repository: unknown): string | undefined {
  const url = typeof repository === 'string' ? repository : typeof repository === 'object' && repository !== null ? (repository as { url?: unknown }).url : undefined;
  if (typeof url !== 'string') return undefined;
  const m = /github\.com[/:]([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/.exec(url) ?? /^(?:github:)?([\w-][\w.-]*)\/([\w.-]+)$/.exec(url);
  return m ? `${m[1]}/${m[2]}` : undefined;
}

/**
 * The tool's workflows as the package at `packageRoot` names them: its repository and release ref,
 * `release.json`'s commit when it is this version's, else the major tag `v<major>` (a tree that is
 * no release), which the release workflow moves to each release of that major.
 * @throws {ChangelogSyncError} `E_INTERNAL` when package.json names no GitHub repository.
 */
export function toolWorkflows(packageRoot: string): ToolWorkflows {
  const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version?: unknown; repository?: unknown };
  const repository = githubRepository(pkg.repository);
  const version = typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  if (!repository) throw new ChangelogSyncError('E_INTERNAL', `${join(packageRoot, 'package.json')}: its "repository" names no GitHub repository, which the team's workflows call`);
  const releaseFile = join(packageRoot, 'release.json');
  if (existsSync(releaseFile)) {
    const release = JSON.parse(readFileSync(releaseFile, 'utf8')) as { version?: unknown; commit?: unknown };
    if (release.version === version && typeof release.commit === 'string' && /^[0-9a-f]{40}$/.test(release.commit)) return { repository, ref: release.commit, version };
  }
  return { repository, ref: `v${version.split('.')[0]}` };
}

/** The `uses:` value of a tool's workflow: `owner/name/.github/workflows/<file>@<ref>`, with ` # v<version>` for a release. */
function usesLine(tool: ToolWorkflows, file: string): string {
  return `${tool.repository}/.github/workflows/${file}@${tool.ref}${tool.version ? ` # v${tool.version}` : ''}`;
}

/** Replaces every `from` in `text`; a template without it is a defect of this module. */
function replaceAll(text: string, from: string | RegExp, to: string, file: string): string {
  const found = typeof from === 'string' ? text.includes(from) : from.test(text);
  if (!found) throw new ChangelogSyncError('E_INTERNAL', `${file}: the packaged template has no ${String(from)} to fit to the repository`);
  return typeof from === 'string' ? text.split(from).join(to) : text.replace(new RegExp(from.source, `${from.flags.replace('g', '')}g`), to);
}

/**
 * A packaged team file fitted to the repository: the `uses:` at the release, the push trigger's
 * branch and content folder, and the folders the reusable workflows take as inputs.
 * @param template the template's path under the package root (one of {@link TEAM_FILES}).
 * @throws {ChangelogSyncError} `E_INTERNAL` when the packaged text lacks a line it fits.
 */
export function fitTeamFile(template: string, text: string, fit: RepositoryFit, tool: ToolWorkflows): string {
  let out = text;
  if (template.endsWith('/changelog.yml')) {
    out = replaceAll(out, 'TOOL_REPOSITORY/.github/workflows/sync.yml@TOOL_REF', usesLine(tool, 'sync.yml'), template);
    out = replaceAll(out, /^(\s+)branches: \[main\]$/m, `$1branches: [${fit.branch}]`, template);
    out = replaceAll(out, "'content/**'", `'${fit.contentDir}/**'`, template);
    out = replaceAll(out, /^(\s+)state-dir: \.changelog$/m, `$1state-dir: ${fit.stateDir}`, template);
    out = replaceAll(out, /^(\s+)output-dir: _site$/m, `$1output-dir: ${fit.outputDir}`, template);
  } else if (template.endsWith('/changelog-check.yml')) {
    out = replaceAll(out, 'TOOL_REPOSITORY/.github/workflows/check.yml@TOOL_REF', usesLine(tool, 'check.yml'), template);
    out = replaceAll(out, /^(\s+)content-dir: content$/m, `$1content-dir: ${fit.contentDir}`, template);
  }
  return out;
}
