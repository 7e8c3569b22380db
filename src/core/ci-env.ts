/**
 * Where the process runs: as a step of a GitHub Actions job or not. The CLI's output
 * (annotations, masks, the job summary) and the site build that deploys (it records its
 * inputs, `site/build/build-project.ts`) both depend on it.
 *
 * @module
 */

/** True when running as a step of a GitHub Actions job (`GITHUB_ACTIONS=true`). */
export function isGitHubActions(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.GITHUB_ACTIONS === 'true';
}
