/**
 * Issue 30: a heading that is the trigger event's type said in words ("archive requests: ...") is
 * the event, never an action run before the steps said after it, whatever the words between
 * (a condition the readers cut: "archive requests: once on the gold plan, ..."). A catalog no
 * corpus set uses.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileRequest } from '../../src/core/authoring/compile-request.ts';
import type { DraftCatalog } from '../../src/core/authoring/compiled-request.ts';
import { toolSteps } from '../../src/core/spec/flow-steps.ts';
import { tool } from './catalog-tool.ts';

const catalog: DraftCatalog = {
  tools: [
    tool({
      name: 'find_member',
      description: 'Reads a library member: their email and plan.',
      effect: 'read',
      args: { type: 'object', required: ['member_id'], properties: { member_id: { type: 'string' } } },
    }),
    tool({
      name: 'pack_archive',
      description: "Packs a member's loan history into an archive.",
      args: {
        type: 'object',
        required: ['member_id', 'plan'],
        properties: { member_id: { type: 'string' }, plan: { type: 'string' } },
      },
    }),
  ],
  events: [{ type: 'archive.requested', payload: ['plan'], values: { plan: ['gold', 'basic'] } }],
};

for (const request of [
  'archive requests: find the member, then pack the archive',
  'archive requests: once on the gold plan, find the member, then pack the archive',
  'archive requests - for gold members, find the member and pack the archive',
])
  test(`"${request}": the heading is the event, and the steps run in the order said`, () => {
    const c = compileRequest(request, catalog);
    assert.deepEqual(
      toolSteps(c.spec!).map((s) => s.tool),
      ['find_member', 'pack_archive'],
      JSON.stringify(c.questions),
    );
    assert.equal(c.spec?.triggers[0]?.event, 'archive.requested');
  });
