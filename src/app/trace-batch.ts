/**
 * One batch of trace export: runs' stored entries turned into spans (decode, project, encode as
 * OTLP JSON) and posted to the collector. Reads no store and keeps no state: a batch carries the
 * runs' entries and the trace ids of the runs they link to. Run on the export's own thread
 * (trace-worker.ts), off the thread that walks runs.
 */
import { postOtlpJson } from '../adapters/otlp/index.ts';
import { decodeEntry, type StoredEntry } from '../core/ledger/index.ts';
import {
  type OtlpResource,
  otlpTraceJson,
  type ProjectedSpan,
  projectSpans,
} from '../core/telemetry/index.ts';

/** One run to export: its entries as stored, and the trace of each run it links to. */
export interface RunToExport {
  readonly runId: string;
  readonly entries: readonly StoredEntry[];
  readonly traces: readonly (readonly [string, string])[];
}

export interface ExportBatch {
  readonly id: number;
  readonly runs: readonly RunToExport[];
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly resource: OtlpResource;
}

export interface BatchResult {
  readonly id: number;
  /** Runs whose spans went out, and the spans. */
  readonly exportedRuns: number;
  readonly spans: number;
  /** Runs whose entries could not be projected, each with why. */
  readonly unreadable: readonly { readonly runId: string; readonly message: string }[];
  /** Why the request failed (its runs are dropped), when it did. */
  readonly problem?: string;
}

/** The spans of one run's entries, links resolved against the traces given. */
export function spansOf(run: RunToExport): ProjectedSpan[] {
  const traces = new Map(run.traces);
  return projectSpans(run.entries.map(decodeEntry), { traceOf: (id) => traces.get(id) });
}

export async function exportBatch(b: ExportBatch): Promise<BatchResult> {
  const spans: ProjectedSpan[] = [];
  const unreadable: { runId: string; message: string }[] = [];
  let projected = 0;
  for (const run of b.runs) {
    try {
      spans.push(...spansOf(run));
      projected++;
    } catch (e) {
      unreadable.push({ runId: run.runId, message: (e as Error).message });
    }
  }
  if (spans.length === 0) return { id: b.id, exportedRuns: 0, spans: 0, unreadable };
  const r = await postOtlpJson(b.url, otlpTraceJson(spans, b.resource), {
    ...(b.headers ? { headers: b.headers } : {}),
    timeoutMs: b.timeoutMs,
  });
  return r.ok
    ? { id: b.id, exportedRuns: projected, spans: spans.length, unreadable }
    : { id: b.id, exportedRuns: 0, spans: 0, unreadable, problem: r.problem ?? 'the request failed' };
}
