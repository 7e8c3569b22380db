/**
 * The files `init` writes into a team's `.github/` (docs/github-actions.md, "A team's repository"):
 * two workflows calling the tool's reusable `sync.yml` and `check.yml` at a release, and
 * `dependabot.yml`, which moves that release and the npm package. Templates in `src/cli/team/`; the
 * repository is package.json's `repository`, the release's commit `release.json` (the release workflow writes it).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isScalar, parseDocument } from 'yaml';
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
 * branch and content folder, the folders the reusable workflows take as inputs, and with
 * several workspaces their secrets ({@link withWorkspaceSecret}).
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
    for (const name of fit.workspaceSecrets ?? []) out = withWorkspaceSecret(out, name, template) ?? out;
  } else if (template.endsWith('/changelog-check.yml')) {
    out = replaceAll(out, 'TOOL_REPOSITORY/.github/workflows/check.yml@TOOL_REF', usesLine(tool, 'check.yml'), template);
    out = replaceAll(out, /^(\s+)content-dir: content$/m, `$1content-dir: ${fit.contentDir}`, template);
  }
  return out;
}

/** The input of the tool's `sync.yml` that names the workspaces' secrets (docs/github-actions.md, "Several workspaces: a secret each"). */
const WORKSPACE_SECRETS_INPUT = 'workspace-secrets';

/**
 * The team's scheduled workflow with the secret `name` among the `workspace-secrets` its call of
 * the tool's `sync.yml` hands the sync, one name a line; the rest of the text as it is (the
 * input's lines are rewritten, or added after the call's last `with:` line).
 * @param file the workflow's path, for the error.
 * @returns the new text; undefined when `name` is listed already.
 * @throws {ChangelogSyncError} `E_FILE` when no job of the workflow calls `sync.yml` with a `with:` block.
 */
export function withWorkspaceSecret(text: string, name: string, file: string): string | undefined {
  const doc = parseDocument(text);
  const jobs = doc.get('jobs');
  const call = isMap(jobs) ? jobs.items.map((p) => p.value).find((job) => isMap(job) && /\/\.github\/workflows\/sync\.ya?ml@/.test(String(job.get('uses')))) : undefined;
  const withs = isMap(call) ? call.get('with', true) : undefined;
  if (!isMap(withs) || !withs.range || withs.items.length === 0) {
    throw new ChangelogSyncError('E_FILE', `${file}: no job calls changelog-sync's sync.yml with a "with:" block, so the secret ${name} cannot be listed in its ${WORKSPACE_SECRETS_INPUT}`, {
      file,
      field: `jobs.<job>.with.${WORKSPACE_SECRETS_INPUT}`,
      hint: `add "${WORKSPACE_SECRETS_INPUT}: ${name}" (one secret name a line) to the "with:" of the job that calls sync.yml`,
    });
  }
  const first = withs.items[0]!.key as { range?: [number, number, number] };
  const keyIndent = ' '.repeat(first.range![0] - (text.lastIndexOf('\n', first.range![0]) + 1));
  const pair = withs.items.find((p) => isScalar(p.key) && p.key.value === WORKSPACE_SECRETS_INPUT);
  if (pair && isScalar(pair.value) && pair.value.range) {
    const listed = (typeof pair.value.value === 'string' ? pair.value.value : '').split(/\s+/).filter(Boolean);
    if (listed.includes(name)) return undefined;
    const [start, , end] = pair.value.range;
    const indent = /\n([ \t]+)\S/.exec(text.slice(start, end))?.[1] ?? `${keyIndent}  `;
    const block = `|\n${[...listed, name].map((n) => `${indent}${n}\n`).join('')}`;
    // A block scalar's range ends after its last line break, a plain one's before it.
    const rest = text[end - 1] === '\n' ? text.slice(end) : text.slice(end).replace(/^\r?\n/, '');
    return text.slice(0, start) + block + rest;
  }
  const at = withs.range[2];
  const lead = text[at - 1] === '\n' ? '' : '\n';
  const lines = [
    `${keyIndent}# One repository secret per workspace, as changelog.config.json's tokenEnv names it: the`,
    `${keyIndent}# sync gets these and no other secret (changelog-sync init --workspace adds one).`,
    `${keyIndent}${WORKSPACE_SECRETS_INPUT}: |`,
    `${keyIndent}  ${name}`,
  ];
  return `${text.slice(0, at)}${lead}${lines.join('\n')}\n${text.slice(at)}`;
}
