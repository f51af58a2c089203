/**
 * Trace export: when a run reaches a terminal status, its ledger (as committed here, or read back)
 * goes to the export's own thread, which projects it into spans (core/telemetry) and sends them
 * to an OpenTelemetry collector over OTLP/HTTP JSON, so the walking thread pays only for handing
 * it over. The spans
 * are a projection, never the truth, and exporting never fails, slows or changes a run: it
 * happens after the commit, off the walk, through a bounded queue; a collector that is down or
 * slow only costs dropped batches (counted, reported through `onError` without headers).
 *
 * Configured from the OpenTelemetry variables (`traceExportFromEnv`); without an endpoint none of
 * this is loaded or run.
 */
import { dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { decodeEntry, type PayloadOf, type StoredEntry, TERMINAL_STATUSES } from '../core/ledger/index.ts';
import { type OtlpResource, type ProjectedSpan, runTraceOf } from '../core/telemetry/index.ts';
import { ENGINE_VERSION } from '../engine/index.ts';
import type { AppendRequest, Ledger } from '../ports/index.ts';
import type { CommitObserver } from './observed-store.ts';
import { type BatchResult, type ExportBatch, type RunToExport, spansOf } from './trace-batch.ts';

export interface TraceExportConfig {
  /** The full traces URL (`<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`). */
  readonly url: string;
  /** Sent with every export (OTEL_EXPORTER_OTLP_HEADERS): e.g. a collector's token. Never logged. */
  readonly headers?: Readonly<Record<string, string>>;
  /** `service.name` of the resource (OTEL_SERVICE_NAME; `keel` by default). */
  readonly serviceName?: string;
  /** Per export request, in ms (OTEL_EXPORTER_OTLP_TIMEOUT; 10 s by default). */
  readonly timeoutMs?: number;
  /** Runs waiting to be exported at most (2048 by default); past it a run's spans are dropped. */
  readonly maxQueue?: number;
  /** How long a finished run waits for others to share its request (200 ms by default). */
  readonly lingerMs?: number;
  /** Told why an export failed (a status, a network error code); never a header or a span. */
  readonly onError?: (message: string) => void;
}

export interface TraceExportStats {
  exportedRuns: number;
  exportedSpans: number;
  failedRequests: number;
  droppedRuns: number;
}

/** Runs per export request at most. */
const BATCH = 128;
/** How long a finished run waits for others to share its export request, in ms. */
const LINGER_MS = 200;
const ENV_NAMES = ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'] as const;

function parseHeaders(text: string | undefined, name: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!text?.trim()) return out;
  for (const part of text.split(',')) {
    const at = part.indexOf('=');
    const key = at < 0 ? '' : decodeURIComponent(part.slice(0, at).trim());
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key))
      throw new KeelError(ErrorCode.usage, `${name}: expected key=value pairs separated by commas`, {
        field: name,
      });
    out[key] = decodeURIComponent(part.slice(at + 1).trim());
  }
  return out;
}

/**
 * The export the OpenTelemetry variables ask for, or undefined (no endpoint, OTEL_SDK_DISABLED,
 * OTEL_TRACES_EXPORTER=none). Keel speaks OTLP/HTTP JSON: another OTEL_EXPORTER_OTLP_PROTOCOL is
 * refused, naming the variable, rather than sent to a port that expects something else.
 */
export function traceExportFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): TraceExportConfig | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return undefined;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!traces && !base) return undefined;
  const name = traces ? ENV_NAMES[0] : ENV_NAMES[1];
  const url = traces || `${base!.replace(/\/+$/, '')}/v1/traces`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new KeelError(ErrorCode.usage, `${name}: not a URL: ${JSON.stringify(url.slice(0, 200))}`, {
      field: name,
    });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new KeelError(ErrorCode.usage, `${name}: expected an http:// or https:// URL`, { field: name });
  for (const p of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL'] as const) {
    const v = env[p]?.trim();
    if (v && v !== 'http/json')
      throw new KeelError(
        ErrorCode.usage,
        `${p}: Keel exports OTLP/HTTP with JSON bodies; set it to http/json (or leave it unset), got ${JSON.stringify(v.slice(0, 40))}`,
        { field: p },
      );
  }
  const timeout = env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? env.OTEL_EXPORTER_OTLP_TIMEOUT;
  const timeoutMs = timeout === undefined || timeout.trim() === '' ? undefined : Number(timeout);
  if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs < 1))
    throw new KeelError(
      ErrorCode.usage,
      'OTEL_EXPORTER_OTLP_TIMEOUT: expected milliseconds, a positive integer',
      {
        field: 'OTEL_EXPORTER_OTLP_TIMEOUT',
      },
    );
  const headers = {
    ...parseHeaders(env.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS'),
    ...parseHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
  };
  const service = env.OTEL_SERVICE_NAME?.trim();
  return {
    url: parsed.href,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(service ? { serviceName: service } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  };
}

/** The spans of one stored run, links resolved against the linked runs' roots. */
export async function runSpans(
  ledger: Ledger,
  tenant: string,
  runId: string,
  stored?: readonly StoredEntry[],
): Promise<ProjectedSpan[]> {
  return spansOf(await runToExport(ledger, tenant, runId, stored));
}

/**
 * What the export thread needs of one run: its entries (read back unless given) and the trace of
 * every run it links to (a fork's source, an attempt's first, a shadow's live run, a parent or a
 * child), from those runs' roots.
 */
export async function runToExport(
  ledger: Ledger,
  tenant: string,
  runId: string,
  stored?: readonly StoredEntry[],
): Promise<RunToExport> {
  const raw = stored ?? (await ledger.readEntries(tenant, runId));
  const first = raw[0];
  if (first?.seq !== 0) return { runId, entries: raw, traces: [] };
  // Only the entries that name other runs are decoded here; the rest is the thread's work.
  const root = decodeEntry(first).payload as PayloadOf<'run.started'>;
  const linked = new Set<string>();
  for (const id of [root.forkOf?.runId, root.attemptOf, root.shadowOf, root.delegatedBy?.runId])
    if (id) linked.add(id);
  for (const e of raw)
    if (e.kind === 'step.allowed' && hasDelegation(e)) {
      const child = (decodeEntry(e).payload as PayloadOf<'step.allowed'>).delegation?.runId;
      if (child) linked.add(child);
    }
  const traces: [string, string][] = [];
  for (const id of linked) {
    const [root0] = await ledger.readEntries(tenant, id, 0, 1);
    if (root0?.seq === 0)
      traces.push([id, runTraceOf(id, decodeEntry(root0).payload as PayloadOf<'run.started'>)]);
  }
  return { runId, entries: raw, traces };
}

/**
 * Whether a stored step.allowed may name a child run: its payload's bytes hold the key (a key is
 * never a blob). Decoding every step's payload here would be the thread's work done twice.
 */
function hasDelegation(e: StoredEntry): boolean {
  return Buffer.from(e.payload.buffer, e.payload.byteOffset, e.payload.byteLength).includes('"delegation"');
}

/**
 * The export thread: trace-worker.js beside this file in the package. Run from the sources
 * (trace-worker.ts, through tsx) a thread does not inherit tsx's loader on Node 20, so it
 * registers it first.
 */
function startThread(): Worker {
  const here = fileURLToPath(import.meta.url);
  const file = join(dirname(here), `trace-worker${extname(here)}`);
  const workerData = { keelTraceExport: true };
  if (extname(here) !== '.ts') return new Worker(file, { workerData });
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(pathToFileURL(file).href);
  return new Worker(`import(${tsx}).then((t) => { t.register(); return import(${entry}); })`, {
    eval: true,
    workerData,
  });
}

/** Runs whose committed entries are kept until they finish, at most (past it their ledger is read back). */
const MAX_TRACKED = 4096;

export class TraceExporter implements CommitObserver {
  readonly stats: TraceExportStats = { exportedRuns: 0, exportedSpans: 0, failedRequests: 0, droppedRuns: 0 };
  /** Finished runs waiting to be sent, with their ledgers when every entry was seen committed here. */
  private readonly queue = new Map<string, { tenant: string; runId: string; entries?: StoredEntry[] }>();
  /**
   * The entries this process committed of runs it created, while they run: the same stored bytes
   * the ledger holds, so a run walked here is exported without reading it back.
   */
  private readonly seen = new Map<string, StoredEntry[]>();
  private timer: NodeJS.Timeout | undefined;
  private draining: Promise<void> | undefined;
  private readonly resource: OtlpResource;
  private worker: Worker | undefined;
  private sent = 0;
  private readonly waiting = new Map<number, (r: BatchResult) => void>();

  constructor(
    private readonly ledger: Ledger,
    private readonly config: TraceExportConfig,
  ) {
    this.resource = {
      attributes: {
        'service.name': config.serviceName ?? 'keel',
        'telemetry.sdk.name': 'keel',
        'telemetry.sdk.language': 'nodejs',
      },
      scope: { name: 'keel', version: ENGINE_VERSION },
    };
  }

  committed(req: AppendRequest): void {
    const key = `${req.tenant}\n${req.runId}`;
    let entries = this.seen.get(key);
    if (req.create && req.entries[0]?.seq === 0 && this.seen.size < MAX_TRACKED) {
      entries = [...req.entries];
      this.seen.set(key, entries);
    } else if (entries) {
      // Contiguous with what was seen, or forgotten (another process appended: read it back).
      if (req.entries[0]?.seq === entries.length) entries.push(...req.entries);
      else {
        this.seen.delete(key);
        entries = undefined;
      }
    }
    if (req.status !== 'running') this.seen.delete(key);
    // A run that waits (a person, a reconciliation, a pause) is read back when it finishes: memory
    // holds only the runs being walked.
    if (!TERMINAL_STATUSES.includes(req.status)) return;
    this.enqueue(req.tenant, req.runId, entries);
  }

  /** Queues a run's spans for export (a run already queued is sent once). */
  enqueue(tenant: string, runId: string, entries?: StoredEntry[]): void {
    const key = `${tenant}\n${runId}`;
    if (!this.queue.has(key)) {
      if (this.queue.size >= (this.config.maxQueue ?? 2048)) {
        this.stats.droppedRuns++;
        return;
      }
      this.queue.set(key, { tenant, runId, ...(entries ? { entries } : {}) });
    }
    if (!this.draining) this.schedule();
  }

  /**
   * Batched as a collector likes it: a request per BATCH runs, or what came within LINGER_MS.
   * Runs that finish while a request is out wait for the next full batch or linger, never for a
   * request of their own (one request per run costs more than the runs it traces).
   */
  private schedule(): void {
    if (this.queue.size >= BATCH) this.kick();
    else if (this.queue.size > 0 && !this.timer) {
      this.timer = setTimeout(() => this.kick(), this.config.lingerMs ?? LINGER_MS);
      this.timer.unref();
    }
  }

  private kick(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.draining ??= this.drain().finally(() => {
      this.draining = undefined;
      this.schedule();
    });
  }

  /** Sends what is queued now, BATCH runs a request, through the export thread. */
  private async drain(): Promise<void> {
    let left = this.queue.size;
    while (left > 0) {
      const batch = [...this.queue.values()].slice(0, BATCH);
      for (const r of batch) this.queue.delete(`${r.tenant}\n${r.runId}`);
      left -= batch.length;
      const runs: RunToExport[] = [];
      for (const r of batch) {
        try {
          runs.push(await runToExport(this.ledger, r.tenant, r.runId, r.entries));
        } catch (e) {
          this.unreadable(r.runId, (e as Error).message);
        }
      }
      if (runs.length === 0) continue;
      const r = await this.send(runs);
      for (const u of r.unreadable) this.unreadable(u.runId, u.message);
      if (r.problem === undefined) {
        this.stats.exportedRuns += r.exportedRuns;
        this.stats.exportedSpans += r.spans;
      } else {
        this.stats.failedRequests++;
        this.stats.droppedRuns += runs.length - r.unreadable.length;
        this.config.onError?.(`trace export to ${new URL(this.config.url).origin} failed: ${r.problem}`);
      }
    }
  }

  private unreadable(runId: string, message: string): void {
    this.stats.droppedRuns++;
    this.config.onError?.(`trace export: could not read run ${runId}: ${message}`);
  }

  /**
   * One batch through the export thread (started on first use). The thread holds the process
   * open only while a batch is out, so a CLI command's close still waits for its spans; a thread
   * that fails answers every batch out with why, and the next batch starts another.
   */
  private send(runs: RunToExport[]): Promise<BatchResult> {
    const id = ++this.sent;
    const batch: ExportBatch = {
      id,
      runs,
      url: this.config.url,
      ...(this.config.headers ? { headers: this.config.headers } : {}),
      timeoutMs: this.config.timeoutMs ?? 10_000,
      resource: this.resource,
    };
    const thread = this.thread();
    return new Promise<BatchResult>((resolve) => {
      this.waiting.set(id, resolve);
      thread.ref();
      thread.postMessage(batch);
    });
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const w = startThread();
    w.unref();
    const answer = (r: BatchResult) => {
      const resolve = this.waiting.get(r.id);
      this.waiting.delete(r.id);
      if (this.waiting.size === 0) w.unref();
      resolve?.(r);
    };
    w.on('message', answer);
    const fail = (why: string) => {
      if (this.worker === w) this.worker = undefined;
      for (const id of [...this.waiting.keys()])
        answer({ id, exportedRuns: 0, spans: 0, unreadable: [], problem: why });
    };
    w.on('error', (e) => fail(`the export thread failed: ${e.message}`));
    w.on('exit', (code) => fail(`the export thread exited (${code})`));
    this.worker = w;
    return w;
  }

  /** Flushes (for at most `ms`), then ends the export thread. */
  async close(ms = 2000): Promise<void> {
    await Promise.race([this.flush(), new Promise((r) => setTimeout(r, ms).unref())]);
    const w = this.worker;
    this.worker = undefined;
    await w?.terminate();
  }

  /** Sends every run queued so far now (or drops it, on failure), and resolves when that is done. */
  async flush(): Promise<void> {
    while (this.queue.size > 0 || this.draining) {
      if (!this.draining) this.kick();
      await this.draining;
    }
  }
}
