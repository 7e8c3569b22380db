/**
 * Where the process runs: as a step of a GitHub Actions job or not. The CLI's output
 * (annotations, masks, the job summary) and the site build that deploys (it records its
 * inputs, `site/pipeline/build-project.ts`) both depend on it.
 */

/**
 * True when running as a step of a GitHub Actions job (`GITHUB_ACTIONS=true`).
 * @param env the environment the run was given (the CLI's process's, read at its entry, or the library's `env`).
 */
export function isGitHubActions(env: NodeJS.ProcessEnv): boolean {
  return env.GITHUB_ACTIONS === 'true';
}
