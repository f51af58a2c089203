/** Verifies one run's ledger through `keel.runs.verify` and prints time and peak memory (bench only). */
import { createKeel } from '../src/app/index.ts';

const [path, tenant, runId] = process.argv.slice(2) as [string, string, string];
const keel = createKeel({ store: path });
const t0 = performance.now();
const r = await keel.runs.verify(tenant, runId);
const ms = performance.now() - t0;
await keel.close();
console.log(
  JSON.stringify({
    ok: r.ok,
    entries: r.entries,
    ms,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    ...(r.ok ? {} : { failure: r.failure }),
  }),
);
