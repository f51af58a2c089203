/**
 * A loop under a crash, in process: the walk is abandoned inside the second item's refund (its
 * handler never returns, as if the process died there), and a second Keel on the same store
 * recovers the run. It resumes at the right item: the refund in flight is settled on the tool's
 * own side by its idempotency key (never called again), the first item's effects are never
 * repeated, and the third item runs once. Each refund's effect happens exactly once, counted on
 * the tool's side; the run verifies and replays identically.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { FOREACH_SPEC, lines } from '../../test/helpers/foreach-spec.ts';
import { createKeel } from '../app/index.ts';
import type { ToolDefinition } from '../ports/index.ts';
import { deploy, spyTool } from '../testing/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-foreach-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The tool's own side: each refund's effect by idempotency key, across both "processes". */
const effects = new Map<string, string[]>();

function tools(o: { hangOn?: string }): ToolDefinition[] {
  const issue = spyTool('issue_refund', {
    idempotent: false,
    handler: (a, ctx) => {
      const sku = String(a.sku);
      effects.set(ctx.idempotencyKey, [...(effects.get(ctx.idempotencyKey) ?? []), sku]);
      // The process "dies" inside this call: the effect happened, the answer never comes back.
      if (sku === o.hangOn) return new Promise(() => {});
      return { id: `r-${sku}` };
    },
  });
  return [
    spyTool('get_order', { effect: 'read' }),
    {
      ...issue,
      reconcile: (a, ctx) =>
        effects.has(ctx.idempotencyKey)
          ? { happened: true, output: { id: `r-${String(a.sku)}` } }
          : { happened: false },
    },
    spyTool('add_note'),
    spyTool('send_reply'),
  ];
}

test('a run killed inside an iteration resumes at the right item and repeats no completed effect', async () => {
  const path = join(dir, 'loop.db');
  const first = createKeel({ store: path, tools: tools({ hangOn: 's1' }) });
  await deploy(first, 'acme', FOREACH_SPEC.replace('status: LIVE', 'status: AUTONOMOUS'));
  void first.events.emit('acme', {
    id: 'e1',
    type: 'refund.requested',
    subject: 'o1',
    time: '2026-01-01T00:00:00Z',
    payload: { lines: lines(3) },
  });
  while (effects.size < 2) await new Promise((r) => setTimeout(r, 5));
  const [run] = (await first.runs.list('acme')).runs;
  const runId = run!.runId;

  const second = createKeel({ store: path, tools: tools({}) });
  assert.equal((await second.runs.recover('acme', runId)).status, 'completed');
  const entries = await second.runs.entries('acme', runId);
  const done = entries
    .filter((e) => e.kind === 'step.completed' || e.kind === 'step.reconciled')
    .map(
      (e) => `${e.kind === 'step.reconciled' ? 'reconciled:' : ''}${(e.payload as { step: string }).step}`,
    );
  assert.deepEqual(done, [
    'lookup',
    'refund_lines[0].refund',
    'refund_lines[0].note',
    'reconciled:refund_lines[1].refund',
    'refund_lines[1].note',
    'refund_lines[2].refund',
    'refund_lines[2].note',
    'reply',
  ]);
  // Each item's refund happened exactly once, under its own key.
  assert.deepEqual(
    [...effects.values()].map((skus) => skus.join()),
    ['s0', 's1', 's2'],
  );
  assert.equal(entries.filter((e) => e.kind === 'foreach.started').length, 1, 'the list is recorded once');
  assert.equal((await second.runs.verify('acme', runId)).ok, true);
  assert.equal((await second.runs.replay('acme', runId)).identical, true);
  await second.close();
});
