/** keel explain reads a step's approval deadline in words, and says when it can never apply. */
// biome-ignore-all lint/suspicious/noThenProperty: a step's approval declares `then` (what a deadline does), as the spec writes it
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import type { ToolDescriptor } from '../tools/tool-descriptor.ts';
import { explainSpec } from './explain-spec.ts';

const spec = (approval: unknown): WorkflowSpec =>
  ({
    id: 'refunds',
    version: 1,
    status: 'DRAFT',
    triggers: [],
    steps: [{ name: 'refund', tool: 'refund', args: {}, approval }],
    limits: { maxSteps: 1, maxCostUsd: 0 },
  }) as unknown as WorkflowSpec;

const tool = (destructive: boolean) =>
  ({
    name: 'refund',
    description: 'Refunds an order.',
    effect: 'write',
    destructive,
  }) as unknown as ToolDescriptor;

test('an approval deadline reads as what happens when nobody decides', () => {
  const text = explainSpec(
    spec({ timeout: '24h', remind: '4h', then: { escalate: 'finance-leads', timeout: '1d' } }),
    [tool(true)],
  ).text;
  assert.match(
    text,
    /refund \(refund\): if nobody decides on its approval within 24 hours, it goes to finance-leads, and is denied if nobody decides within 1 day more; a reminder every 4 hours until then\./,
  );
  assert.match(
    explainSpec(spec({ timeout: '90m', then: 'deny' }), [tool(true)]).text,
    /within 90 minutes, it is denied \(approval_timeout\)\./,
  );
});

test('a deadline on a step nothing makes wait for a person is said never to apply', () => {
  assert.match(
    explainSpec(spec({ timeout: '24h', then: 'deny' }), [tool(false)]).text,
    /declares an approval deadline \(.*\), but nothing makes it wait for a person: it never applies\./,
  );
});
