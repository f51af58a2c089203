/**
 * The console section of `npm run bench`: how soon the operator console shows its first page of
 * runs with 10,000 runs in the store, in real headless Chromium against a real `keel serve`
 * process on loopback, and how large the built console is.
 *
 * The store is filled in this process (10,000 runs of a one-step workflow, 8 at a time), then a
 * `keel serve` child serves it. The browser signs in once (the key in the tab's sessionStorage, as
 * the console keeps it); each timed load is a fresh navigation to /console/, from its start until
 * the first runs table row is drawn. Median of 5 after one untimed load. Bounded in count and time;
 * the server is stopped by its PID and the store removed, even on error.
 *
 *   node --import tsx bench/console-bench.ts [--runs 10000]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createKeel } from '../src/app/index.ts';
import { consoleDir } from '../src/server/console.ts';
import { launchChromium } from '../src/testing/chromium.ts';
import { deploy } from '../src/testing/index.ts';
import { makeKey, Server } from './http-bench.ts';

const LOADS = 5;
const LOAD_DEADLINE_MS = 30_000;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The built console's files, gzipped one by one (as a server would send them), in bytes. */
export function consoleGzipBytes(): number {
  const dir = consoleDir();
  if (!dir) throw new Error('the console is not built: npm run build');
  let total = 0;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else total += gzipSync(readFileSync(join(d, e.name)), { level: 9 }).length;
    }
  };
  walk(dir);
  return total;
}

async function fill(store: string, runs: number): Promise<void> {
  const keel = createKeel({ store });
  try {
    await deploy(
      keel,
      'bench',
      'id: ticket-noted\nversion: 1\nstatus: LIVE\ntriggers: [{event: ticket.noted}]\nsteps: [{name: note, tool: core.noop}]\nlimits: {maxSteps: 1, maxCostUsd: 0}\n',
    );
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < runs; i = next++)
        await keel.events.emit('bench', {
          id: `e-${i}`,
          type: 'ticket.noted',
          time: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
          payload: { n: i },
        });
    };
    await Promise.all(Array.from({ length: 8 }, worker));
  } finally {
    await keel.close();
  }
}

export async function consoleFigures(o: { runs?: number } = {}): Promise<Record<string, number>> {
  const runs = o.runs ?? 10_000;
  const dir = mkdtempSync(join(tmpdir(), 'keel-console-bench-'));
  const store = join(dir, 'keel.db');
  let server: Server | undefined;
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  try {
    const t0 = performance.now();
    await fill(store, runs);
    const fillSecs = (performance.now() - t0) / 1000;
    const key = makeKey(store);
    server = await Server.start(store);
    browser = await launchChromium();
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    const url = new URL('/console/', server.url).href;
    await page.goto(url);
    // Page code as text: this file is type-checked for Node, which has no sessionStorage.
    await page.evaluate(`sessionStorage.setItem('keel.apiKey', ${JSON.stringify(key)})`);
    const load = async () => {
      const start = performance.now();
      await page.goto(url, { timeout: LOAD_DEADLINE_MS });
      await page.locator('table.runs tbody tr').first().waitFor({ timeout: LOAD_DEADLINE_MS });
      return performance.now() - start;
    };
    await load();
    const ms: number[] = [];
    for (let i = 0; i < LOADS; i++) ms.push(await load());
    const rows = await page.locator('table.runs tbody tr').count();
    if (rows !== 50) throw new Error(`the first page shows ${rows} runs, not 50`);
    return {
      [`console: first page of runs drawn, ms from navigation (${runs.toLocaleString('en-US')} runs in the store, median of ${LOADS})`]:
        median(ms),
      'console: built files, kB gzipped': consoleGzipBytes() / 1024,
      [`console: store filled with ${runs.toLocaleString('en-US')} runs, s (not a console figure)`]: fillSecs,
    };
  } finally {
    await browser?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--runs');
  const figures = await consoleFigures(i > 0 ? { runs: Number(process.argv[i + 1]) } : {});
  for (const [k, v] of Object.entries(figures)) console.log(`${k}  ${v.toFixed(1)}`);
}
