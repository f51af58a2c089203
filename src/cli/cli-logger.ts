/**
 * The structured logs of the long-running commands (`keel serve`, `keel worker`): pino JSON lines
 * on stderr, one object per line with `level`, `time` (ISO 8601), `component`, `msg` and ids
 * (request id, tenant, run id, worker id). Callers put ids, statuses and counts in a line, never a
 * key, a secret, a header or a payload value; the redaction below is a second guard for field
 * names that could hold one, not the first.
 */
import { pino } from 'pino';
import type { WorkerEvent } from '../worker/index.ts';

export type CliLogger = pino.Logger;

/** How long a log line may wait in the buffer before it is written. */
export const LOG_FLUSH_MS = 50;

/** One buffer (and one timer, one exit flush) per descriptor, however many loggers write to it. */
const destinations = new Map<number, pino.DestinationStream>();

/**
 * Lines to a descriptor, written in 4 KiB writes (or every LOG_FLUSH_MS, and at exit) rather
 * than one write per line: a write per request was a tenth of a request's CPU in `keel serve`.
 * Only a process killed outright (SIGKILL) loses what it had not yet written, at most LOG_FLUSH_MS.
 */
function bufferedDestination(dest: number): pino.DestinationStream {
  const open = destinations.get(dest);
  if (open) return open;
  const stream = pino.destination({ dest, sync: true, minLength: 4096 });
  setInterval(() => stream.flush(), LOG_FLUSH_MS).unref();
  process.on('exit', () => {
    try {
      stream.flushSync();
    } catch {
      // stderr already closed: nothing to write to.
    }
  });
  destinations.set(dest, stream);
  return stream;
}

/** Fields whose value never reaches a log line, at the top of a line's object or one level down. */
export const REDACTED_FIELDS: readonly string[] = [
  'authorization',
  'key',
  'token',
  'secret',
  'payload',
  'args',
  'output',
  'headers',
];
const REDACTED = new Set(REDACTED_FIELDS);
const CENSOR = '[redacted]';

/**
 * A line's object with every REDACTED_FIELDS value, at its top or in an object one level down,
 * replaced by `[redacted]`; the object itself is left as it was (a copy is made where one is
 * censored). What pino's `redact` option did with the paths `<field>` and `*.<field>`, at a
 * fraction of its cost per line (it was a tenth of a request's CPU in `keel serve`).
 */
export function redactFields(o: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const k of Object.keys(o)) {
    const v = o[k];
    if (v === undefined) continue;
    if (REDACTED.has(k)) {
      out ??= { ...o };
      out[k] = CENSOR;
    } else if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      let inner: Record<string, unknown> | undefined;
      for (const f of REDACTED_FIELDS)
        if (Object.hasOwn(v, f)) {
          inner ??= { ...(v as Record<string, unknown>) };
          inner[f] = CENSOR;
        }
      if (inner) {
        out ??= { ...o };
        out[k] = inner;
      }
    }
  }
  return out ?? o;
}

/** A logger writing JSON lines to `dest` (stderr's descriptor by default), buffered briefly. */
export function cliLogger(
  component: 'serve' | 'worker',
  dest: number | NodeJS.WritableStream = 2,
): CliLogger {
  const stream = typeof dest === 'number' ? bufferedDestination(dest) : dest;
  return pino(
    {
      base: { component, pid: process.pid },
      level: process.env.KEEL_LOG_LEVEL?.trim() || 'info',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }), log: redactFields },
    },
    stream,
  );
}

/** A worker's event as a log line, its `kind` kept (`"kind":"started"` marks a ready worker). */
export function logWorkerEvent(log: CliLogger, e: WorkerEvent, verbose: boolean): void {
  switch (e.kind) {
    case 'started':
      log.info(
        { kind: e.kind, workerId: e.id, concurrency: e.concurrency, leaseMs: e.leaseMs },
        'worker started',
      );
      return;
    case 'walked':
      // A line per run is info with --verbose, else debug (KEEL_LOG_LEVEL=debug shows it).
      log[verbose ? 'info' : 'debug'](
        { kind: e.kind, runId: e.runId, tenant: e.tenant, status: e.status, ms: e.ms },
        'run walked',
      );
      return;
    case 'dropped':
      log.warn({ kind: e.kind, runId: e.runId, tenant: e.tenant, reason: e.reason }, 'run dropped');
      return;
    case 'error':
      log.error({ kind: e.kind, runId: e.runId, tenant: e.tenant, error: e.message }, 'worker error');
      return;
    case 'stopped':
      log.info({ kind: e.kind, workerId: e.id, released: e.released }, 'worker stopped');
      return;
  }
}

/** An unexpected server error as a log line: its name, code and message, never its details. */
export function errorFields(e: unknown): Record<string, unknown> {
  if (!(e instanceof Error)) return { error: String(e).slice(0, 500) };
  const code = (e as { code?: unknown }).code;
  return { error: e.message.slice(0, 500), errorName: e.name, ...(typeof code === 'string' ? { code } : {}) };
}
