/**
 * A wait for an event shown everywhere a reviewer reads a spec: `keel explain` in words (type,
 * match, timeout, look-back), `keel diff` (another type, match, timeout or lookback is a
 * behaviour change; the same match written otherwise is not; a timer turned into an event wait
 * is one), and OpenWOP's graph (a keel.wait node with the wait as config).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explainSpec } from '../authoring/explain-spec.ts';
import { parseSpec } from '../spec/index.ts';
import { diffSpecs } from './diff-specs.ts';

const SPEC = `
id: desk
version: 1
status: LIVE
triggers: [{event: ticket.opened}]
steps:
  - {name: open, tool: open_ticket, args: {}}
  - name: await_reply
    wait: {event: customer.replied, match: "event.subject == run.event.subject", timeout: 48h, lookback: 1h}
  - {name: close, tool: close_ticket, args: {}, if: "steps.await_reply.output.timedOut == true"}
limits: {maxSteps: 5, maxCostUsd: 0}
`;
const V1 = parseSpec(SPEC, 'v1.yaml');
const v2 = (edit: (y: string) => string) =>
  parseSpec(edit(SPEC).replace('version: 1', 'version: 2'), 'v2.yaml');
const flow = (d: ReturnType<typeof diffSpecs>) =>
  d.changes.filter((c) => c.area === 'flow').map((c) => [c.behaviour, c.text]);

test('keel explain reads a wait for an event in words', () => {
  const r = explainSpec(V1, []);
  assert.equal(
    r.steps[1],
    '2. await_reply: then wait up to 48 hours for a customer.replied event where event.subject == run.event.subject (one that arrived up to 1 hour before the wait counts); calls nothing.',
  );
  assert.match(r.summary, /2\. wait up to 48 hours for a customer\.replied event/);
});

test('keel diff compares waits for events', () => {
  assert.deepEqual(
    flow(
      diffSpecs(
        V1,
        v2((y) => y.replace('event.subject == run.event.subject', '(event.subject==run.event.subject)')),
      ),
    ),
    [],
  );
  assert.deepEqual(
    flow(
      diffSpecs(
        V1,
        v2((y) => y.replace('timeout: 48h', 'timeout: 2d')),
      ),
    ),
    [],
  );
  assert.deepEqual(
    flow(
      diffSpecs(
        V1,
        v2((y) => y.replace('timeout: 48h', 'timeout: 24h')),
      ),
    ),
    [[true, 'The wait await_reply now has timeout 24h (was 48h).']],
  );
  assert.deepEqual(
    flow(
      diffSpecs(
        V1,
        v2((y) => y.replace('customer.replied', 'customer.wrote')),
      ),
    ),
    [[true, 'The wait await_reply now waits for customer.wrote (was customer.replied).']],
  );
  const d = flow(
    diffSpecs(
      V1,
      v2((y) => y.replace(', lookback: 1h', '').replace('run.event.subject', 'event.payload.thread')),
    ),
  );
  assert.deepEqual(
    d.map(([b]) => b),
    [true, true],
  );
  assert.match(String(d[0]![1]), /now matches event\.subject == event\.payload\.thread/);
  assert.match(String(d[1]![1]), /now has lookback none \(was 1h\)/);
});
