/**
 * Whether a process of this host still runs: how a stale lock, lease, `sending` journal record
 * or temporary file is told from one in use (docs/sync.md#fencing). A process is its pid, host
 * and, on Linux, its start time and machine (boot id, pid namespace), so a reused pid or another
 * container's is not taken for the recorded one.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/** True when process `pid` exists on this host (EPERM: it exists, owned by another user). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Who a process is, as a lock, a lease or a journal record records it. */
export interface ProcessIdentity {
  pid: number;
  host: string;
  /** Linux: the start time in clock ticks since boot (field 22 of `/proc/<pid>/stat`). */
  procStart?: string;
  /** Linux: the boot id and the pid namespace, so that `pid` means one process. */
  machine?: string;
}

/** The start time of process `pid` in clock ticks since boot (Linux), else undefined. */
function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses; fields after it start at 3.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

let machineId: string | undefined | null = null;
function machine(): string | undefined {
  if (machineId !== null) return machineId;
  try {
    machineId = `${readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}/${readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    machineId = undefined;
  }
  return machineId;
}

/** This process, as {@link ProcessIdentity}. */
export function thisProcess(): ProcessIdentity {
  const me: ProcessIdentity = { pid: process.pid, host: hostname() };
  const start = processStart(process.pid);
  if (start !== undefined) me.procStart = start;
  const m = machine();
  if (m !== undefined) me.machine = m;
  return me;
}

/**
 * Whether a recorded process ran on this machine: same host name and, when both sides know
 * it, the same boot and pid namespace. Only then can {@link isRecordedProcessAlive} tell.
 */
export function isOnThisMachine(p: Pick<ProcessIdentity, 'host' | 'machine'>): boolean {
  if (p.host !== hostname()) return false;
  const m = machine();
  return p.machine === undefined || m === undefined || p.machine === m;
}

/**
 * Whether a recorded process of this machine ({@link isOnThisMachine}) still runs: its pid
 * exists and, when its start time was recorded and can be read, started at that time.
 */
export function isRecordedProcessAlive(p: Pick<ProcessIdentity, 'pid' | 'procStart'>): boolean {
  if (!isProcessAlive(p.pid)) return false;
  if (p.procStart === undefined) return true;
  const now = processStart(p.pid);
  return now === undefined || now === p.procStart;
}
