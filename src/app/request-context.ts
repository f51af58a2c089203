/**
 * What an HTTP request is doing, for its log line: the request id, the tenant its key resolved to
 * and the runs it started or continued. Held in an AsyncLocalStorage for the request's duration;
 * outside a request (the CLI, a worker) every note is a no-op. Ids only: never a body, a key or a
 * payload value.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestNotes {
  readonly requestId: string;
  tenant?: string;
  runIds?: string[];
}

export const requestNotes = new AsyncLocalStorage<RequestNotes>();

export function noteTenant(tenant: string): void {
  const n = requestNotes.getStore();
  if (n) n.tenant = tenant;
}

export function noteRun(runId: string): void {
  const n = requestNotes.getStore();
  if (!n) return;
  n.runIds ??= [];
  if (n.runIds.length < 16 && !n.runIds.includes(runId)) n.runIds.push(runId);
}
