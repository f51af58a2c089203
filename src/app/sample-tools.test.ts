import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileRequest, draftSpec } from '../core/authoring/index.ts';
import { spyTool } from '../testing/index.ts';
import { createKeel } from './keel.ts';
import { SAMPLE_TOOLS } from './sample-tools.ts';

const ctx = { tenant: 't1', runId: 'r', step: 's', idempotencyKey: 'k', attempt: 1 };
const call = (name: string, args: Record<string, unknown>) =>
  SAMPLE_TOOLS.find((t) => t.name === name)!.handler(args, ctx);

test("OpenWOP's sample nodes: uppercase, a mock completion, merge by position or appended", async () => {
  assert.deepEqual(await call('local.sample.demo.uppercase', { text: 'hello' }), { text: 'HELLO' });
  assert.deepEqual(await call('local.sample.demo.uppercase', {}), { text: '' });
  assert.deepEqual(await call('local.sample.demo.mock-ai', { prompt: 'hi' }), {
    completion: 'Mock response to: hi',
  });
  const inputs = [[1, 2], ['a']];
  assert.deepEqual(await call('core.flow.merge', { mode: 'combine-by-position', inputs }), {
    merged: [
      [1, 'a'],
      [2, null],
    ],
  });
  assert.deepEqual(await call('core.flow.merge', { inputs }), { merged: [1, 2, 'a'] });
  for (const t of SAMPLE_TOOLS) assert.equal(t.effect, 'read');
});

test("every instance has them, unless its own tools declare the name (the instance's win)", async () => {
  const mine = spyTool('core.flow.merge', { effect: 'read' });
  const keel = createKeel({ store: ':memory:', tools: [mine] });
  try {
    const names = keel.tools.catalog().map((t) => t.name);
    for (const t of SAMPLE_TOOLS) assert.ok(names.includes(t.name), t.name);
    assert.equal(names.filter((n) => n === 'core.flow.merge').length, 1);
    assert.equal(keel.tools.get('core.flow.merge')?.handler, mine.handler);
  } finally {
    await keel.close();
  }
});

test("a draft's catalog holds the instance's own tools, never the built-in ones (core.*, sample nodes it did not replace)", async () => {
  const mine = spyTool('core.flow.merge', { effect: 'read' });
  const ticket = spyTool('tag_ticket', { effect: 'write' });
  const keel = createKeel({ store: ':memory:', tools: [mine, ticket] });
  try {
    const names = keel.workflows.draftCatalog('t1').tools.map((t) => t.name);
    assert.deepEqual([...names].sort(), ['core.flow.merge', 'tag_ticket']);
    const d = draftSpec(
      compileRequest('upper case the text', keel.workflows.draftCatalog('t1')),
      keel.workflows.draftCatalog('t1'),
    );
    assert.equal(d.publishable, false);
    assert.doesNotMatch(d.questions.map((q) => q.question).join('\n'), /core\.identity|local\.sample/);
  } finally {
    await keel.close();
  }
});
