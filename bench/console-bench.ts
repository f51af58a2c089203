/**
 * The console section of `npm run bench`: how soon the operator console shows its first page of
 * runs with 10,000 runs in the store, in real headless Chromium against a real `keel serve`
 * process on loopback; how soon it finds a run by subject and jumps to a date; and how large the
 * built console is.
 *
 * The store is filled in this process (10,000 runs of a one-step workflow, 8 at a time, each
 * event's subject one of 2,000 tickets), then a `keel serve` child serves it. Each timed first load
 * is cold: a fresh browser context (no cache of any kind), the key put in its sessionStorage as the
 * console keeps it, from the navigation to /console/ until the first runs table row is drawn;
 * median of 5 after one untimed load (which starts the server's own caches). A search and a jump
 * are timed from the key press until the table shows their runs, median of 5 each. Bounded in
 * count and time; the server is stopped by its PID and the store removed, even on error.
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
import { deploy, fakeSources } from '../src/testing/index.ts';
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
  // A clock a minute on at each read, from 2026-01-01: the runs span weeks, so a jump to a date
  // lands deep in the past (the real clock would put all 10,000 in the last minutes).
  let reads = 0;
  const clock = { now: () => Date.UTC(2026, 0, 1) + reads++ * 60_000 };
  const keel = createKeel({ store, sources: { ...fakeSources(), clock } });
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
          subject: `T-${i % 2000}`,
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
    const b = await launchChromium();
    browser = b;
    const url = new URL('/console/', server.url).href;
    /** A fresh context signed in (the key in sessionStorage before any page code runs), and its page. */
    const freshPage = async () => {
      const ctx = await b.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'UTC' });
      // Page code as text: this file is type-checked for Node, which has no sessionStorage.
      await ctx.addInitScript({ content: `sessionStorage.setItem('keel.apiKey', ${JSON.stringify(key)})` });
      return { ctx, page: await ctx.newPage() };
    };
    const firstRows = (page: Awaited<ReturnType<typeof freshPage>>['page']) =>
      page.locator('table.runs tbody tr').first().waitFor({ timeout: LOAD_DEADLINE_MS });
    const coldLoad = async () => {
      const { ctx, page } = await freshPage();
      try {
        const start = performance.now();
        await page.goto(url, { timeout: LOAD_DEADLINE_MS });
        await firstRows(page);
        const ms = performance.now() - start;
        const rows = await page.locator('table.runs tbody tr').count();
        if (rows !== 50) throw new Error(`the first page shows ${rows} runs, not 50`);
        return ms;
      } finally {
        await ctx.close();
      }
    };
    await coldLoad();
    const ms: number[] = [];
    for (let i = 0; i < LOADS; i++) ms.push(await coldLoad());
    // Finding: a subject typed and Enter pressed, a day picked; until the table shows their runs.
    const { ctx, page } = await freshPage();
    const searchMs: number[] = [];
    const jumpMs: number[] = [];
    try {
      await page.goto(url, { timeout: LOAD_DEADLINE_MS });
      await firstRows(page);
      // Polled from here, every 10 ms: the console's CSP forbids the page evaluating strings itself.
      const shows = async (what: string, test: string) => {
        const deadline = performance.now() + LOAD_DEADLINE_MS;
        while (!(await page.evaluate(test))) {
          if (performance.now() > deadline) {
            const seen = await page.evaluate(
              `location.hash + ' ' + document.querySelector('main').innerText`,
            );
            throw new Error(`the console never showed ${what}; it shows ${String(seen).slice(0, 600)}`);
          }
          await new Promise((r) => setTimeout(r, 10));
        }
      };
      for (let i = 0; i < LOADS; i++) {
        // T-1995 to T-1999: subjects no other starts with, so the prefix search finds exactly their runs.
        const subject = `T-${1995 + i}`;
        const box = page.getByLabel('Find a run by subject or run id');
        await box.fill(subject);
        const start = performance.now();
        await box.press('Enter');
        await shows(
          `the runs of ${subject}`,
          `(() => { const c = [...document.querySelectorAll('table.runs td.subject')].map((td) => td.textContent); return c.length === ${runs / 2000} && c.every((t) => t === ${JSON.stringify(subject)}); })()`,
        );
        searchMs.push(performance.now() - start);
      }
      await page.getByLabel('Find a run by subject or run id').fill('');
      await page.getByRole('button', { name: 'Find' }).click();
      await firstRows(page);
      for (let i = 0; i < LOADS; i++) {
        // A day near the start of the runs: a page deep in the past, keyset-paged (no OFFSET).
        const day = `2026-01-0${1 + (i % 2)}`;
        const start = performance.now();
        await page.getByLabel('Jump to').fill(day);
        await shows(
          `the runs before the end of ${day}`,
          `(() => { const t = document.querySelector('table.runs tbody tr time'); return !!t && (t.getAttribute('datetime') ?? '') < '2026-01-0${2 + (i % 2)}T00:00:00Z' && location.hash.includes('until='); })()`,
        );
        jumpMs.push(performance.now() - start);
        await page.getByLabel('Jump to').fill('');
        await firstRows(page);
      }
    } finally {
      await ctx.close();
    }
    return {
      [`console: first page of runs drawn, cold, ms from navigation (${runs.toLocaleString('en-US')} runs in the store, median of ${LOADS})`]:
        median(ms),
      [`console: a subject search drawn, ms from Enter (median of ${LOADS})`]: median(searchMs),
      [`console: a jump to a date drawn, ms from picking the day (median of ${LOADS})`]: median(jumpMs),
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
