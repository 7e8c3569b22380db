/**
 * The push lease's ref on the shared remote (docs/sync.md#the-push-lease):
 * `refs/changelog-sync/push-lease`, a commit (empty tree) whose message is the record as JSON.
 * Read with `git ls-remote` (and a `git fetch` of that ref); changed only by compare-and-swap
 * (`git push --force-with-lease=<ref>:<expected>`, checked under the remote's ref lock), so of
 * two clones exactly one wins. Every git command runs without a prompt and with a time limit:
 * an unreachable remote is an error ({@link LeaseRemoteError}), never a hang.
 */
import { execFile, type ExecFileException } from 'node:child_process';
import { promisify } from 'node:util';
import type { ProcessIdentity } from '../../core/process-alive.js';

/** The ref the lease lives in, on the remote (one workspace's: {@link leaseRef}). */
export const LEASE_REF = 'refs/changelog-sync/push-lease';

/**
 * The ref of a workspace's lease: {@link LEASE_REF} for the one workspace of a project without
 * `workspaces`, else `refs/changelog-sync/workspaces/<key>/push-lease` (a folder of its own,
 * so no key's ref can clash with {@link LEASE_REF}), so workspaces push side by side.
 */
export function leaseRef(workspaceKey: string | undefined): string {
  return workspaceKey === undefined ? LEASE_REF : `refs/changelog-sync/workspaces/${workspaceKey}/push-lease`;
}

/** The lease record, the ref's commit message. */
export interface LeaseRecord extends ProcessIdentity {
  /** Random, per lease: whose lease it is. */
  token: string;
  /** What runs under it (`push`, `sync`). */
  command: string;
  /** The content directory of the holder (absolute), for messages and same-directory takeover. */
  dir: string;
  /** ISO time it was taken, and of its last renewal. */
  takenAt: string;
  renewedAt: string;
  /** ISO time it expires by the holder's clock, unless renewed. */
  expiresAt: string;
  /** Its time to live, ms: renewed every third of it. */
  ttlMs: number;
  /** Its in-doubt time, ms (twice its request timeout); a taker waits at least this long. Absent in older records. */
  inDoubtMs?: number;
}

/** Where the lease is: a git work tree and a remote of it. */
export interface LeaseRemote {
  /** The work tree's top level. */
  cwd: string;
  /** The remote's name (`origin`). */
  remote: string;
  /** The lease's ref on it ({@link leaseRef}). */
  ref: string;
  /** Time limit of one git command, ms. */
  timeoutMs: number;
  /** The environment git runs with (the run's, `Config.env`: PATH, HOME, the remote's credentials). */
  env: NodeJS.ProcessEnv;
}

/** The remote cannot be read or written (offline, no access, refused): the lease cannot be held. */
class LeaseRemoteError extends Error {}

interface GitRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const execGit = promisify(execFile);

/** Runs git with `env` and its own settings over it; rejects only when it cannot start or runs past the time limit. */
async function git(cwd: string, args: string[], timeoutMs: number, env: NodeJS.ProcessEnv): Promise<GitRun> {
  const run = execGit('git', args, {
    cwd,
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    env: {
      ...env,
      GIT_TERMINAL_PROMPT: '0',
      LC_ALL: 'C',
      GIT_AUTHOR_NAME: 'changelog-sync',
      GIT_AUTHOR_EMAIL: 'changelog-sync@localhost',
      GIT_COMMITTER_NAME: 'changelog-sync',
      GIT_COMMITTER_EMAIL: 'changelog-sync@localhost',
    },
  });
  run.child.stdin?.end(); // nothing to read: `hash-object --stdin` hashes the empty tree
  try {
    const { stdout, stderr } = await run;
    return { code: 0, stdout: stdout.trim(), stderr: stderr.trim() };
  } catch (err) {
    const e = err as ExecFileException & { stdout?: string; stderr?: string };
    if (e.killed) throw new LeaseRemoteError(`git ${args[0]} took longer than ${timeoutMs / 1000} s`);
    if (typeof e.code !== 'number' && !e.signal) throw new LeaseRemoteError(`cannot run git: ${e.message}`);
    return { code: typeof e.code === 'number' ? e.code : null, stdout: (e.stdout ?? '').trim(), stderr: (e.stderr ?? '').trim() };
  }
}

/**
 * The remote the lease lives on, for a content directory: its git work tree and `remote`.
 * @param ref the lease's ref ({@link leaseRef}).
 * @param env the environment git runs with.
 * @returns the remote, or why there is none (not a git work tree, no such remote).
 */
export async function findLeaseRemote(dir: string, remote: string, ref: string, timeoutMs: number, env: NodeJS.ProcessEnv): Promise<LeaseRemote | { none: string }> {
  let top: GitRun;
  try {
    top = await git(dir, ['rev-parse', '--show-toplevel'], timeoutMs, env);
  } catch (err) {
    return { none: (err as Error).message };
  }
  if (top.code !== 0) return { none: 'the project is not in a git repository' };
  const url = await git(top.stdout, ['remote', 'get-url', remote], timeoutMs, env);
  if (url.code !== 0) return { none: `the git repository has no remote "${remote}"` };
  return { cwd: top.stdout, remote, ref, timeoutMs, env };
}

/** The lease on the remote now: its commit and record (undefined: no lease). */
export interface SeenLease {
  oid: string;
  /** Undefined when the commit's message is not a lease record. */
  record: LeaseRecord | undefined;
}

/**
 * The commit the lease ref points at now (one `git ls-remote`), compared by a holder before each POST.
 * @returns undefined when the ref does not exist.
 * @throws {LeaseRemoteError} when the remote cannot be read.
 */
export async function readLeaseOid(r: LeaseRemote): Promise<string | undefined> {
  const ls = await git(r.cwd, ['ls-remote', '--exit-code', r.remote, r.ref], r.timeoutMs, r.env);
  if (ls.code === 2) return undefined;
  if (ls.code !== 0) throw new LeaseRemoteError(`git ls-remote ${r.remote} failed: ${gist(ls)}`);
  return ls.stdout.split(/\s/)[0]!;
}

/**
 * Reads the lease on the remote.
 * @returns undefined when the ref does not exist.
 * @throws {LeaseRemoteError} when the remote cannot be read.
 */
export async function readLease(r: LeaseRemote): Promise<SeenLease | undefined> {
  // The ref may move or go between the listing and the fetch (its holder renews or releases
  // it): then look again.
  for (let attempt = 1; ; attempt++) {
    const oid = await readLeaseOid(r);
    if (oid === undefined) return undefined;
    let body = await git(r.cwd, ['cat-file', 'commit', oid], r.timeoutMs, r.env);
    if (body.code !== 0) {
      const fetched = await git(r.cwd, ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', r.remote, r.ref], r.timeoutMs, r.env);
      if (fetched.code === 0) body = await git(r.cwd, ['cat-file', 'commit', oid], r.timeoutMs, r.env);
      else if (attempt >= 5) throw new LeaseRemoteError(`git fetch ${r.remote} ${r.ref} failed: ${gist(fetched)}`);
    }
    if (body.code === 0) return { oid, record: parseRecord(body.stdout) };
    if (attempt >= 5) return { oid, record: undefined }; // keeps moving: an unknown holder, by time only
  }
}

function parseRecord(commit: string): LeaseRecord | undefined {
  const message = commit.slice(commit.indexOf('\n\n') + 2);
  try {
    const r = JSON.parse(message) as Partial<LeaseRecord>;
    // Written by another clone: only a well-formed record names a holder (a pid that is not a
    // positive integer could pass for a dead process of this machine).
    if (typeof r.token !== 'string' || !Number.isSafeInteger(r.pid) || r.pid! <= 0 || typeof r.host !== 'string' || typeof r.takenAt !== 'string' || typeof r.dir !== 'string') return undefined;
    if ((r.procStart !== undefined && typeof r.procStart !== 'string') || (r.machine !== undefined && typeof r.machine !== 'string') || typeof r.command !== 'string') return undefined;
    return r as LeaseRecord;
  } catch {
    return undefined;
  }
}

/**
 * Writes a lease record by compare-and-swap: only while the ref is `expected` (absent when undefined).
 * @returns the new commit, or `lost` when another clone wrote it first.
 * @throws {LeaseRemoteError} when the remote cannot be reached or refuses the ref.
 */
export async function writeLease(r: LeaseRemote, record: LeaseRecord, expected: string | undefined): Promise<{ oid: string } | 'lost'> {
  const tree = await git(r.cwd, ['hash-object', '-t', 'tree', '-w', '--stdin'], r.timeoutMs, r.env);
  if (tree.code !== 0) throw new LeaseRemoteError(`git hash-object failed: ${gist(tree)}`);
  const commit = await git(r.cwd, ['commit-tree', tree.stdout, '-m', JSON.stringify(record)], r.timeoutMs, r.env);
  if (commit.code !== 0) throw new LeaseRemoteError(`git commit-tree failed: ${gist(commit)}`);
  const oid = commit.stdout;
  return (await casPush(r, `${oid}:${r.ref}`, expected)) ? { oid } : 'lost';
}

/**
 * Removes the lease by compare-and-swap (only while it is still `expected`).
 * @returns false when the ref had moved (the lease was someone else's by then).
 * @throws {LeaseRemoteError} as {@link writeLease}.
 */
export async function deleteLease(r: LeaseRemote, expected: string): Promise<boolean> {
  return casPush(r, `:${r.ref}`, expected);
}

async function casPush(r: LeaseRemote, refspec: string, expected: string | undefined): Promise<boolean> {
  const pushed = await git(r.cwd, ['push', '--porcelain', '--no-verify', `--force-with-lease=${r.ref}:${expected ?? ''}`, r.remote, refspec], r.timeoutMs, r.env);
  if (pushed.code === 0) return true;
  // Refused: by the compare-and-swap (the ref moved: checked by git before sending, and by
  // the remote under its ref lock) or for another reason. The ref tells which.
  const now = await readLease(r);
  if ((now?.oid ?? '') !== (expected ?? '')) return false;
  throw new LeaseRemoteError(`git push ${r.remote} ${r.ref} was refused: ${gist(pushed)}`);
}

/** What git said, in one line: its `fatal:`/`error:` line, else its first line. */
function gist(run: GitRun): string {
  const lines = `${run.stderr}\n${run.stdout}`.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.find((l) => /^(fatal|error|remote):/.test(l)) ?? lines[0] ?? `exit code ${run.code}`;
}
