/**
 * Server CPU per run of the HTTP path at 16 clients, one or more builds side by side: each build's
 * `keel serve` on a store of its own, 16 keep-alive clients each looping `POST /api/events` (a
 * 3-step run of `core.noop` steps) + `GET /api/runs/{runId}?waitMs=10000`; the builds alternate in
 * each round (after a warm-up of 400 runs each), and the medians of runs/s and of the server's CPU
 * per run (user + system, /proc) are printed. With --prof <dir>, each server writes a --cpu-prof.
 *
 *   node --import tsx bench/http-long-poll-bench.ts [--rounds 5] [--runs 400] [--prof <dir>]
 *     <bin/keel.js> [<other bin/keel.js> ...]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createKeel } from '../src/app/index.ts';
import { deploy } from '../src/testing/index.ts';
import { Client, makeKey, procCpuMs, Server } from './http-bench.ts';

const SPEC =
  'id: three\nversion: 1\nstatus: LIVE\ntriggers: [{event: bench.tick}]\nsteps:\n  - {name: a, tool: core.noop}\n  - {name: b, tool: core.noop}\n  - {name: c, tool: core.noop}\nlimits: {maxSteps: 3, maxCostUsd: 0}\n';
const args = process.argv.slice(2);
const opt = (n: string, d: string) => {
  const i = args.indexOf(`--${n}`);
  return i >= 0 ? args.splice(i, 2)[1]! : d;
};
const rounds = Number(opt('rounds', '5'));
const runs = Number(opt('runs', '400'));
const prof = opt('prof', '');
const bins = args.map((b) => resolve(b));
let seq = 0;
const dir = mkdtempSync(join(tmpdir(), 'keel-long16-'));
const servers: { bin: string; server: Server; key: string }[] = [];
try {
  for (const [i, bin] of bins.entries()) {
    const store = join(dir, `s${i}.db`);
    const setup = createKeel({ store });
    await deploy(setup, 'bench', SPEC);
    await setup.close();
    const key = makeKey(store, 'bench');
    servers.push({
      bin,
      key,
      server: await Server.start(store, prof ? ['--cpu-prof', '--cpu-prof-dir', resolve(prof)] : [], [bin]),
    });
  }
  const one = async (c: Client) => {
    const r = await c.request('POST', '/api/events', {
      id: `e-${seq++}`,
      type: 'bench.tick',
      time: '2026-12-05T00:00:00Z',
      payload: { n: seq },
    });
    if (r.status !== 201) throw new Error(`${r.status} ${r.body}`);
    const runId = (JSON.parse(r.body) as { runs: { runId: string }[] }).runs[0]!.runId;
    for (;;) {
      const g = await c.request('GET', `/api/runs/${runId}?waitMs=10000`);
      const st = (JSON.parse(g.body) as { status: string }).status;
      if (st === 'completed') return;
      if (st !== 'running') throw new Error(st);
    }
  };
  const res = servers.map(() => ({ rps: [] as number[], cpu: [] as number[] }));
  for (let r = -1; r < rounds; r++)
    for (const [i, s] of servers.entries()) {
      const c = new Client(s.server.url, s.key);
      const n = r < 0 ? 400 : runs;
      let left = n;
      const cpu0 = procCpuMs(s.server.pid);
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (left-- > 0) await one(c);
        }),
      );
      const t = (performance.now() - t0) / 1000;
      const cpu = procCpuMs(s.server.pid) - cpu0;
      c.close();
      if (r >= 0) {
        res[i]!.rps.push(n / t);
        res[i]!.cpu.push(cpu / n);
      }
    }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const [i, s] of servers.entries())
    console.log(
      s.bin,
      'runs/s',
      med(res[i]!.rps).toFixed(0),
      'server CPU ms/run',
      med(res[i]!.cpu).toFixed(2),
      'all cpu',
      res[i]!.cpu.map((x) => x.toFixed(2)).join(' '),
    );
} finally {
  for (const s of servers) await s.server.stop();
  rmSync(dir, { recursive: true, force: true });
}
