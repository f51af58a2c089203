/**
 * Hooks in `npm run bench`: verified deliveries per second into runs, beside plain `POST
 * /api/events`, in the same process and the same run. One server (`startServer`, loopback, SQLite
 * file, embedded walkers) serves both: a hook authenticated by a payment provider's timestamped
 * HMAC-SHA256 (`t=,v1=`, signed by the sender per delivery) and the Keel API with a bearer key. Each
 * delivery names a new event of a LIVE 1-step workflow, so each answer is 201 with one run committed
 * (walked in the background). Batches alternate (ABBA), `concurrency` requests in flight; the
 * figures are medians over the batches. Bounded: `rounds` × 2 batches of `batch` requests.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKeel } from '../src/app/index.ts';
import { parseHooks } from '../src/core/hooks/index.ts';
import { startServer } from '../src/server/serve.ts';
import { deploy } from '../src/testing/index.ts';

const SECRET = 'bench-hook-secret';
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export async function hookFigures(
  o: { rounds?: number; batch?: number; concurrency?: number } = {},
): Promise<Record<string, number>> {
  const rounds = o.rounds ?? 4;
  const batch = o.batch ?? 300;
  const concurrency = o.concurrency ?? 8;
  const dir = mkdtempSync(join(tmpdir(), 'keel-hooks-bench-'));
  const keel = createKeel({ store: join(dir, 'keel.db'), metrics: true });
  await deploy(
    keel,
    'bench',
    'id: refunds\nversion: 1\nstatus: LIVE\ntriggers: [{event: charge.refunded}]\nsteps:\n  - {name: n, tool: core.noop}\nlimits: {maxSteps: 1, maxCostUsd: 0}\n',
  );
  const key = (await keel.keys.create('bench', 'bench')).key;
  const hooks = parseHooks(
    `hooks:
  - name: pay
    tenant: bench
    auth: { scheme: hmac-sha256-timestamped, header: Stripe-Signature, secret: "{{secret.S}}" }
    body: { type: object, required: [id, type, created] }
    event: { type: "{{body.type}}", id: "{{body.id}}", time: "{{body.created}}", payload: { amount_cents: "{{body.data.amount}}" } }
    rateLimit: { perSecond: 100000, burst: 100000 }
`,
    'bench.hooks.yaml',
  ).map((spec) => ({ spec, secret: SECRET }));
  const server = await startServer(keel, { port: 0, hooks, log: (e) => console.error(e) });
  let n = 0;
  const hook = async () => {
    const body = JSON.stringify({
      id: `h-${n++}`,
      type: 'charge.refunded',
      created: 1764900000,
      data: { amount: 1250 },
    });
    const t = Math.floor(Date.now() / 1000);
    const sig = createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex');
    const r = await fetch(`${server.url}/hooks/pay`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Stripe-Signature': `t=${t},v1=${sig}` },
      body,
    });
    await r.arrayBuffer();
    if (r.status !== 201) throw new Error(`hook delivery answered ${r.status}`);
  };
  const plain = async () => {
    const body = JSON.stringify({
      id: `p-${n++}`,
      type: 'charge.refunded',
      time: '2025-12-05T02:00:00Z',
      payload: { amount_cents: 1250 },
    });
    const r = await fetch(`${server.url}/api/events`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
      body,
    });
    await r.arrayBuffer();
    if (r.status !== 201) throw new Error(`POST /api/events answered ${r.status}`);
  };
  /** Requests per second for one batch, `concurrency` in flight. */
  const run = async (send: () => Promise<void>) => {
    let left = batch;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (left-- > 0) await send();
      }),
    );
    return batch / ((performance.now() - t0) / 1000);
  };
  try {
    await run(hook);
    await run(plain);
    const h: number[] = [];
    const p: number[] = [];
    for (let k = 0; k < rounds; k++) {
      if (k % 2 === 0) {
        h.push(await run(hook));
        p.push(await run(plain));
      } else {
        p.push(await run(plain));
        h.push(await run(hook));
      }
    }
    return {
      [`hook deliveries/s into runs (t=,v1= verified, ${concurrency} in flight)`]: median(h),
      [`POST /api/events/s into runs (bearer key, ${concurrency} in flight)`]: median(p),
      'hook / plain events ratio': median(h) / median(p),
    };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const quick = process.argv.includes('--quick');
  const f = await hookFigures(quick ? { rounds: 2, batch: 150 } : {});
  for (const [k, v] of Object.entries(f))
    console.log(`${k.padEnd(64)}  ${v.toFixed(k.includes('ratio') ? 2 : 0).padStart(10)}`);
}
