/**
 * A process that dies inside a tool call: the tool notes the call (its own side), then the
 * process SIGKILLs itself before the result can be recorded. Used by crash.test.ts.
 * argv: <store path> <marker file> <idempotent: yes|no> [chain]
 * With `chain`, two idempotent `mark` steps run first, so the kill lands in step 3.
 */
import { appendFileSync } from 'node:fs';
import { createKeel } from '../../src/app/index.ts';
import { deploy } from '../../src/testing/index.ts';

const [store, marker, idem, chain] = process.argv.slice(2) as [string, string, string, string | undefined];
const keel = createKeel({
  store,
  tools: [
    {
      name: 'mark',
      description: 'an idempotent write, noted on its own side',
      args: { type: 'object' },
      destructive: false,
      effect: 'write',
      idempotent: true,
      scopes: [],
      handler: (_args, ctx) => {
        appendFileSync(marker, `mark ${ctx.idempotencyKey}\n`);
        return { marked: ctx.step };
      },
    },
    {
      name: 'charge',
      description: 'charges a card; the process dies mid-call',
      args: { type: 'object' },
      destructive: false,
      effect: 'external',
      idempotent: idem === 'yes',
      scopes: [],
      handler: (_args, ctx) => {
        appendFileSync(marker, `charge ${ctx.idempotencyKey}\n`);
        process.kill(process.pid, 'SIGKILL');
      },
    },
  ],
});
await deploy(
  keel,
  'acme',
  chain === 'chain'
    ? 'id: pay\nversion: 1\nstatus: LIVE\ntriggers: [{event: go}]\nsteps: [{name: a, tool: mark}, {name: b, tool: mark}, {name: charge, tool: charge, args: {amount: 5}}]\nlimits: {maxSteps: 3, maxCostUsd: 0}\n'
    : 'id: pay\nversion: 1\nstatus: LIVE\ntriggers: [{event: go}]\nsteps: [{name: charge, tool: charge, args: {amount: 5}}]\nlimits: {maxSteps: 1, maxCostUsd: 0}\n',
);
await keel.events.emit('acme', { id: 'crash-1', type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });
