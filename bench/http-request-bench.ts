/**
 * Server CPU per request of one authenticated GET (`/api/session` by default), one or more builds
 * side by side: each build's `keel serve` on a fresh store of its own, 16 keep-alive clients
 * sending `n` requests per round; the builds alternate in each round (after a warm-up round), and
 * the median of the server's CPU per request (user + system, /proc) is printed, in µs.
 *
 *   node --import tsx bench/http-request-bench.ts [--rounds 5] [--n 3000] [--path /api/session]
 *     [--prof <dir>] <bin/keel.js> [<other bin/keel.js> ...]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createKeel } from '../src/app/index.ts';
import { Client, makeKey, procCpuMs, Server } from './http-bench.ts';

const args = process.argv.slice(2);
const opt = (n: string, d: string) => {
  const i = args.indexOf(`--${n}`);
  return i >= 0 ? args.splice(i, 2)[1]! : d;
};
const rounds = Number(opt('rounds', '5'));
const n = Number(opt('n', '3000'));
const path = opt('path', '/api/session');
const prof = opt('prof', '');
const bins = args.map((b) => resolve(b));
const dir = mkdtempSync(join(tmpdir(), 'keel-healthz-'));
const servers: { bin: string; server: Server; key: string }[] = [];
try {
  for (const [i, bin] of bins.entries()) {
    const store = join(dir, `s${i}.db`);
    await createKeel({ store }).close();
    const key = makeKey(store, 'bench');
    servers.push({
      bin,
      key,
      server: await Server.start(store, prof ? ['--cpu-prof', '--cpu-prof-dir', resolve(prof)] : [], [bin]),
    });
  }
  const res = servers.map(() => [] as number[]);
  for (let r = -1; r < rounds; r++)
    for (const [i, s] of servers.entries()) {
      const c = new Client(s.server.url, s.key);
      let left = n;
      const cpu0 = procCpuMs(s.server.pid);
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (left-- > 0) {
            const g = await c.request('GET', path);
            if (g.status >= 400) throw new Error(`${g.status} ${g.body}`);
          }
        }),
      );
      const cpu = procCpuMs(s.server.pid) - cpu0;
      c.close();
      if (r >= 0) res[i]!.push((cpu / n) * 1000);
    }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const [i, s] of servers.entries())
    console.log(
      s.bin,
      path,
      'server CPU µs/request',
      med(res[i]!).toFixed(0),
      'all',
      res[i]!.map((x) => x.toFixed(0)).join(' '),
    );
} finally {
  for (const s of servers) await s.server.stop();
  rmSync(dir, { recursive: true, force: true });
}
