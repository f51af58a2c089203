/**
 * OpenTelemetry export in `npm run bench`: sequential 3-step runs/s with trace export on (every
 * finished run's spans sent over OTLP/HTTP JSON to a receiver on loopback, in a child process of
 * its own, as a collector would be) against export off, on two Keels open side by side, in
 * alternating batches (a paired comparison). A batch with export on is timed until its runs'
 * spans were all sent. Bounded: `rounds` pairs of `batch` runs each. Bar: < 10% fewer runs/s.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { openBenchKeel } from './bench-keel.ts';

/** A minimal OTLP/HTTP receiver: reads each body, counts spans' bytes, answers 200. */
const RECEIVER = `
const http = require('node:http');
let bytes = 0, requests = 0;
const s = http.createServer((req, res) => {
  req.on('data', (d) => { bytes += d.length; });
  req.on('end', () => { requests++; res.writeHead(200, {'content-type': 'application/json'}).end('{}'); });
});
s.listen(0, '127.0.0.1', () => process.stdout.write(String(s.address().port) + '\\n'));
process.on('SIGTERM', () => { process.stdout.write(JSON.stringify({ bytes, requests }) + '\\n'); process.exit(0); });
`;

async function startReceiver(): Promise<{ url: string; child: ChildProcess; out: { text: string } }> {
  const child = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const out = { text: '' };
  child.stdout!.on('data', (d) => {
    out.text += d;
  });
  const deadline = Date.now() + 10_000;
  while (!out.text.includes('\n')) {
    if (Date.now() > deadline) throw new Error('the OTLP receiver did not start');
    await new Promise((r) => setTimeout(r, 10));
  }
  return { url: `http://127.0.0.1:${Number(out.text.trim())}/v1/traces`, child, out };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export async function otelFigures(
  dir: string,
  o: { rounds?: number; batch?: number } = {},
): Promise<Record<string, number>> {
  const rounds = o.rounds ?? 8;
  const batch = o.batch ?? 500;
  const receiver = await startReceiver();
  const errors: string[] = [];
  try {
    const off = await openBenchKeel(join(dir, 'otel-off.db'));
    const on = await openBenchKeel(join(dir, 'otel-on.db'), false, {
      traces: { url: receiver.url, onError: (m) => errors.push(m) },
    });
    const exporter = on.keel.telemetry.traces!;
    // Warm both (JIT, statement caches, the receiver's connection).
    await off.runs(50);
    await on.runs(50);
    await exporter.flush();
    const offRates: number[] = [];
    const onRates: number[] = [];
    const overheads: number[] = [];
    for (let i = 0; i < rounds; i++) {
      // Alternate which goes first, so drift over time does not favour either.
      const measureOn = async () => {
        const t0 = performance.now();
        await on.runs(batch);
        await exporter.flush();
        return batch / ((performance.now() - t0) / 1000);
      };
      const measureOff = async () => batch / (await off.runs(batch));
      let a: number;
      let b: number;
      if (i % 2 === 0) {
        a = await measureOff();
        b = await measureOn();
      } else {
        b = await measureOn();
        a = await measureOff();
      }
      offRates.push(a);
      onRates.push(b);
      overheads.push((1 - b / a) * 100);
    }
    const stats = { ...exporter.stats };
    await off.close();
    await on.close();
    if (errors.length > 0) throw new Error(`trace export failed during the bench: ${errors[0]}`);
    return {
      'otel: 3-step runs/s, export off (paired)': median(offRates),
      'otel: 3-step runs/s, export on to a loopback OTLP receiver': median(onRates),
      'otel: overhead % on runs/s (median of paired batches; bar < 10%)': median(overheads),
      'otel: overhead % from the median rates': (1 - median(onRates) / median(offRates)) * 100,
      'otel: spans exported per run': stats.exportedSpans / Math.max(1, stats.exportedRuns),
      'otel: runs exported': stats.exportedRuns,
      'otel: runs dropped': stats.droppedRuns,
    };
  } finally {
    const exited = once(receiver.child, 'exit');
    receiver.child.kill('SIGTERM');
    await exited;
  }
}

/** `node --import tsx bench/otel-bench.ts [--quick]`: this figure alone. */
async function standalone(): Promise<void> {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const d = mkdtempSync(join(tmpdir(), 'keel-otel-bench-'));
  try {
    const quick = process.argv.includes('--quick');
    for (const [k, v] of Object.entries(await otelFigures(d, quick ? { rounds: 4, batch: 100 } : {})))
      console.log(`${k.padEnd(66)}  ${v.toFixed(1).padStart(10)}`);
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
}
if (import.meta.url === `file://${process.argv[1]}`) void standalone();
