/** OpenWOP's graph of a spec draws a wait for an event as a keel.wait node, the wait as its config. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSpec } from '../core/spec/index.ts';
import { specAsDefinition } from './definition.ts';

test('a wait for an event is a keel.wait node with its event, match and timeout as config', () => {
  const spec = parseSpec(
    `
id: desk
version: 1
status: LIVE
triggers: [{event: ticket.opened}]
steps:
  - {name: open, tool: open_ticket, args: {}}
  - name: await_reply
    wait: {event: customer.replied, match: "event.subject == run.event.subject", timeout: 48h}
  - {name: close, tool: close_ticket, args: {}}
limits: {maxSteps: 5, maxCostUsd: 0}
`,
    'desk.yaml',
  );
  const def = specAsDefinition(spec) as {
    nodes: { id: string; typeId: string; config: Record<string, unknown> }[];
    edges: { sourceNodeId: string; targetNodeId: string }[];
  };
  assert.deepEqual(def.nodes[1], {
    ...def.nodes[1],
    id: 'await_reply',
    typeId: 'keel.wait',
    config: { event: 'customer.replied', match: 'event.subject == run.event.subject', timeout: '48h' },
  });
  assert.deepEqual(
    def.edges.map((e) => [e.sourceNodeId, e.targetNodeId]),
    [
      ['open', 'await_reply'],
      ['await_reply', 'close'],
    ],
  );
});
