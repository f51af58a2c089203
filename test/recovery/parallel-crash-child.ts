/**
 * A process that dies while two parallel branches' calls are both in flight: each tool notes its
 * call (its own side), and the second to start waits until the first has noted its own, then the
 * process SIGKILLs itself before either result can be recorded. Used by parallel-crash.test.ts.
 * argv: <store path> <marker file>
 * Branch `crm` calls `lookup` (idempotent); branch `billing` calls `charge` (not idempotent).
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { createKeel } from '../../src/app/index.ts';
import type { ToolDefinition } from '../../src/ports/index.ts';
import { deploy } from '../../src/testing/index.ts';

const [store, marker] = process.argv.slice(2) as [string, string];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Notes the call, waits until both calls are noted, then the second one kills the process. */
const meet = async (tool: string, key: string) => {
  appendFileSync(marker, `${tool} ${key}\n`);
  for (let i = 0; i < 200; i++) {
    const lines = readFileSync(marker, 'utf8').trim().split('\n');
    if (lines.length >= 2) process.kill(process.pid, 'SIGKILL');
    await sleep(10);
  }
  throw new Error('the other branch never started: not concurrent');
};
const base = { args: { type: 'object' }, destructive: false, scopes: [] } as const;
const tools: ToolDefinition[] = [
  {
    ...base,
    name: 'lookup',
    description: 'an idempotent read',
    effect: 'read',
    idempotent: true,
    handler: (_a, ctx) => meet('lookup', ctx.idempotencyKey),
  },
  {
    ...base,
    name: 'charge',
    description: 'charges a card; not idempotent',
    effect: 'external',
    idempotent: false,
    handler: (_a, ctx) => meet('charge', ctx.idempotencyKey),
  },
  {
    ...base,
    name: 'reply',
    description: 'replies',
    effect: 'write',
    idempotent: true,
    handler: () => ({ ok: 1 }),
  },
];
const keel = createKeel({ store, tools });
await deploy(
  keel,
  'acme',
  `id: enrich
version: 1
status: LIVE
triggers: [{event: go}]
steps:
  - name: enrich
    parallel:
      join: all
      branches:
        crm: [{name: lookup, tool: lookup, args: {who: dana}}]
        billing: [{name: charge, tool: charge, args: {amount: 5}}]
  - {name: reply, tool: reply, args: {text: "{{ steps.lookup.output.x }} {{ steps.charge.output.charged }}"}}
limits: {maxSteps: 3, maxCostUsd: 0}
`,
);
await keel.events.emit('acme', { id: 'crash-1', type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });
