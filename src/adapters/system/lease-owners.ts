/**
 * Lease owners as processes. Every lease Keel takes carries its holder's name; inline walks and
 * `keel serve`'s recovery worker are named `<role>:<host>:<pid>`, and registered workers are found
 * by id in the workers table (host, pid). A holder on this host whose process no longer exists
 * (killed, crashed) is gone: its leases can be taken over at once instead of waiting for them to
 * expire. A holder on another host is never judged here: its lease expires on its own.
 *
 * Caveat: hosts are told apart by their name; two machines (or containers) sharing one name and one
 * SQLite file would judge each other's processes. Give them distinct host names.
 */
import { hostname } from 'node:os';
import type { WorkerStatus } from '../../ports/index.ts';

/** The owner name of this process's leases in a role (`inline`, `serve`, `recover`). */
export function leaseOwnerName(role: string): string {
  return `${role}:${hostname()}:${process.pid}`;
}

/** Whether a process with this id exists on this host (EPERM: it exists, owned by someone else). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const NAMED = /^[a-z][a-z0-9-]*:(.+):(\d+)$/;

/** Where a lease owner runs: its registered worker row, or the host and pid in its name. */
function placeOf(owner: string, workers: WorkerStatus['workers']): { host: string; pid: number } | undefined {
  const w = workers.find((x) => x.id === owner);
  if (w) return { host: w.host, pid: w.pid };
  const m = NAMED.exec(owner);
  return m ? { host: m[1]!, pid: Number(m[2]) } : undefined;
}

/**
 * Of `owners` (holders of live leases: on runs, or on shadow work), those that are processes of
 * this host which no longer exist (never this one).
 */
export function goneOwnersAmong(
  owners: readonly string[],
  workers: WorkerStatus['workers'],
  exists = processExists,
): string[] {
  const host = hostname();
  return owners.filter((owner) => {
    const p = placeOf(owner, workers);
    return p !== undefined && p.host === host && p.pid !== process.pid && p.pid > 0 && !exists(p.pid);
  });
}

/** Owners of live leases on runs that are processes of this host which no longer exist (never this one). */
export function goneLeaseOwners(status: WorkerStatus, exists = processExists): string[] {
  return goneOwnersAmong(
    status.leases.map((l) => l.owner),
    status.workers,
    exists,
  );
}
