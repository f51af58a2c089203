/**
 * What an HTTP request is doing, for its log line: the request id, the tenant its key resolved to
 * and the runs it started or continued. The notes are tied to objects that travel with the request
 * (its Hono context, the principal its key resolved to: `tieNotes`) and handed on explicitly, not
 * held in an AsyncLocalStorage, whose hooks on every promise of the process cost `keel serve` a
 * tenth or more of its CPU per run. Outside a request (the CLI, a worker) there are no notes, and
 * every note is a no-op. Ids only: never a body, a key or a payload value.
 */

export interface RequestNotes {
  readonly requestId: string;
  tenant?: string;
  runIds?: string[];
}

/** Each request's notes, by the objects that carry it; gone with them. */
const tied = new WeakMap<object, RequestNotes>();

/** Ties a request's notes to an object of that request (its context, its principal). */
export function tieNotes(owner: object, notes: RequestNotes): void {
  tied.set(owner, notes);
}

/** The notes of the request `owner` belongs to, if it belongs to one. */
export function notesOf(owner: object | undefined): RequestNotes | undefined {
  return owner === undefined ? undefined : tied.get(owner);
}

export function noteTenant(notes: RequestNotes | undefined, tenant: string): void {
  if (notes) notes.tenant = tenant;
}

export function noteRun(notes: RequestNotes | undefined, runId: string): void {
  if (!notes) return;
  notes.runIds ??= [];
  if (notes.runIds.length < 16 && !notes.runIds.includes(runId)) notes.runIds.push(runId);
}
