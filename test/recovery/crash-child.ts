/**
 * A process that dies inside a tool call: the tool notes the call (its own side), then the
 * process SIGKILLs itself before the result can be recorded. Used by crash.test.ts.
 * argv: <store path> <marker file> <idempotent: yes|no>
 */
import { appendFileSync } from 'node:fs';
import { createKeel } from '../../src/app/index.ts';

const [store, marker, idem] = process.argv.slice(2) as [string, string, string];
const keel = createKeel({
  store,
  tools: [
    {
      name: 'charge',
      description: 'charges a card; the process dies mid-call',
      args: { type: 'object' },
      destructive: false,
      effect: 'external',
      idempotent: idem === 'yes',
      scopes: [],
      handler: (_args, ctx) => {
        appendFileSync(marker, `${ctx.idempotencyKey}\n`);
        process.kill(process.pid, 'SIGKILL');
      },
    },
  ],
});
await keel.workflows.publish(
  'acme',
  'id: pay\nversion: 1\nstatus: LIVE\ntriggers: [{event: go}]\nsteps: [{name: charge, tool: charge, args: {amount: 5}}]\nlimits: {maxSteps: 1, maxCostUsd: 0}\n',
  'pay.yaml',
  'ops',
);
await keel.events.emit('acme', { id: 'crash-1', type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });
