/**
 * The trace export's thread (started by TraceExporter): each message is a batch (trace-batch.ts),
 * answered with how many spans went out or why they did not. Listens only when started as Keel's
 * export thread, so importing this file anywhere else does nothing.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { type BatchResult, type ExportBatch, exportBatch } from './trace-batch.ts';

if (!isMainThread && parentPort && (workerData as { keelTraceExport?: boolean } | null)?.keelTraceExport)
  parentPort.on('message', (b: ExportBatch) => {
    void exportBatch(b).then(
      (r) => parentPort!.postMessage(r),
      (e: unknown) =>
        parentPort!.postMessage({
          id: b.id,
          exportedRuns: 0,
          spans: 0,
          unreadable: [],
          problem: `the export thread failed: ${(e as Error)?.message ?? String(e)}`,
        } satisfies BatchResult),
    );
  });
