/**
 * A value said after "unless" in the trigger's clause, past a pronoun and an article ("for every
 * alert unless its a sev3"), is turned around, never read as the value itself; and "sev 3" said
 * apart is the one word "sev3". Over a catalog of its own (a lab's equipment alarms).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const lab: DraftCatalog = {
  tools: [
    tool({
      name: 'page_technician',
      description: 'Pages the technician on duty about an alarm.',
      args: {
        type: 'object',
        required: ['alarm_id'],
        properties: { alarm_id: { type: 'string' } },
        additionalProperties: false,
      },
    }),
  ],
  events: [
    {
      type: 'alarm.raised',
      payload: ['severity', 'room'],
      values: { severity: ['sev1', 'sev2', 'sev3'], room: ['cold-room', 'clean-room'] },
    },
  ],
};

const draft = (request: string) => draftSpec(compileRequest(request, lab), lab);

test('"unless its a sev 3" past its pronoun and article is the test turned around', () => {
  for (const request of [
    'page the technician for every alarm unless its a sev 3',
    'page the technician for every alarm unless it is a sev3',
  ]) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.deepEqual(
      d.spec!.triggers,
      [{ event: 'alarm.raised', when: 'payload.severity != "sev3"' }],
      request,
    );
  }
});
