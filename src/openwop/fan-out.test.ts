/**
 * OpenWOP's branching-workflow sample (a source fanning out to two nodes that join on a merge
 * with all_success) published as a definition runs as Keel parallel branches: both branches'
 * `node.started` come before either `node.completed` in the run's OpenWOP events, and the run
 * replays identically.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createKeel } from '../app/index.ts';
import { deploy, fakeSources, spyTool } from '../testing/index.ts';
import { compileDefinition, parseDefinition } from './definition.ts';
import { projectEvents } from './project-events.ts';

const node = (id: string, typeId: string) => ({
  id,
  typeId,
  name: id,
  position: { x: 0, y: 0 },
  config: {},
  inputs: {},
});
const all = { triggerRule: 'all_success' };
const BRANCHING = {
  id: 'branching-demo',
  name: 'Branching Workflow Demo',
  version: '1.0.0',
  nodes: [
    node('source', 'core.noop'),
    node('branchA', 'local.sample.demo.uppercase'),
    node('branchB', 'local.sample.demo.mock-ai'),
    node('merge', 'core.flow.merge'),
    node('sink', 'core.noop'),
  ],
  edges: [
    { id: 'e1', sourceNodeId: 'source', targetNodeId: 'branchA' },
    { id: 'e2', sourceNodeId: 'source', targetNodeId: 'branchB' },
    { id: 'e3', sourceNodeId: 'branchA', targetNodeId: 'merge', ...all },
    { id: 'e4', sourceNodeId: 'branchB', targetNodeId: 'merge', ...all },
    { id: 'e5', sourceNodeId: 'merge', targetNodeId: 'sink' },
  ],
  triggers: [{ id: 'manual', type: 'manual' }],
  variables: [],
  metadata: {},
  settings: {},
};

test("OpenWOP's branching sample runs its two branches at the same time, then merges", async () => {
  // Each branch answers only once the other has started (walked one after another, it would time out).
  let started = 0;
  let both!: () => void;
  const met = new Promise<void>((r) => {
    both = r;
  });
  const meet = async () => {
    if (++started === 2) both();
    await Promise.race([
      met,
      new Promise((_, reject) => setTimeout(() => reject(new Error('not concurrent')), 5000)),
    ]);
    return { ok: true };
  };
  const tools = [
    spyTool('local.sample.demo.uppercase', { effect: 'read', handler: meet }),
    spyTool('local.sample.demo.mock-ai', { effect: 'read', handler: meet }),
    spyTool('core.flow.merge', { effect: 'read' }),
  ];
  const keel = createKeel({ store: ':memory:', tools, sources: fakeSources() });
  try {
    const spec = compileDefinition(parseDefinition(BRANCHING));
    const { status: _draft, ...rest } = spec;
    // The spec as JSON (which is YAML), its status on a line of its own for `deploy`.
    const text = `status: LIVE\n${Object.entries({ ...rest, triggers: [{ event: 'go' }] })
      .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
      .join('\n')}\n`;
    await deploy(keel, 't1', text);
    const [run] = (
      await keel.events.emit('t1', {
        id: 'e1',
        type: 'go',
        subject: 's',
        time: '2026-01-01T00:00:00Z',
        payload: {},
      })
    ).runs;
    assert.equal(run!.status, 'completed');
    const entries = await keel.runs.entries('t1', run!.runId);
    const events = projectEvents(run!.runId, entries).map((p) => `${p.event.type}:${p.event.nodeId ?? ''}`);
    const at = (x: string) => events.indexOf(x);
    assert.ok(at('node.started:branchA') >= 0 && at('node.started:branchB') >= 0, events.join(' '));
    assert.ok(
      Math.max(at('node.started:branchA'), at('node.started:branchB')) <
        Math.min(at('node.completed:branchA'), at('node.completed:branchB')),
      events.join(' '),
    );
    assert.ok(at('node.completed:merge') > at('node.completed:branchA'), events.join(' '));
    assert.equal((await keel.runs.replay('t1', run!.runId)).identical, true);
    assert.equal((await keel.runs.verify('t1', run!.runId)).ok, true);
  } finally {
    await keel.close();
  }
});
