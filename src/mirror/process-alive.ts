/**
 * Whether a process of this host still runs: how a stale lock or a killed writer's
 * temporary file is told from one in use.
 *
 * @module
 */

/** True when process `pid` exists on this host (EPERM: it exists, owned by another user). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
