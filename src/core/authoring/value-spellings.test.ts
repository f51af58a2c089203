/**
 * A value the events carry, typed with a slip (grammar/value-spellings.ts): "critcal alerts" is the
 * severity critical, listed under Assumed; a word that is the catalog's, a word inside a text, or a
 * slip of two values at once is never changed. Over a catalog no corpus uses: a lab's sample
 * tracking.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const lab: DraftCatalog = {
  tools: [
    tool({
      name: 'flag_sample',
      description: 'Flags a sample for the lab lead.',
      args: {
        type: 'object',
        required: ['sample_id', 'note'],
        properties: { sample_id: { type: 'string' }, note: { type: 'string' } },
      },
    }),
  ],
  events: [
    {
      type: 'sample.logged',
      payload: ['condition', 'storage'],
      values: {
        condition: ['damaged', 'contaminated', 'intact', 'pending'],
        storage: ['frozen', 'chilled', 'ambient'],
      },
    },
  ],
};
const draft = (request: string) => draftSpec(compileRequest(request, lab), lab);

test('a value the events carry, typed with a slip, is that value, listed under Assumed', () => {
  for (const [request, when, typo] of [
    [
      "contaminted samples: flag them 'Check the seal.'",
      'payload.condition == "contaminated"',
      'contaminted',
    ],
    ["damagd samples: flag them 'Check the seal.'", 'payload.condition == "damaged"', 'damagd'],
    ["when a chiled sample is logged, flag it 'Check the fridge.'", 'payload.storage == "chilled"', 'chiled'],
  ] as const) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec?.triggers[0]?.when, when, request);
    assert.match((d.readBack?.assumed ?? []).join('\n'), new RegExp(`"${typo}" is read as`), request);
  }
});

test('a word of its own one slip from a value, or said where no value is, stays as typed', () => {
  // "spending" is one slip from the value "pending", but said of no sample.
  const d = draft("damaged samples: flag them 'Check it.' no spending on them");
  assert.doesNotMatch((d.readBack?.assumed ?? []).join('\n'), /"spending" is read as/);
  const e = draft("when a sample is logged and it's contaminted, flag it 'Check the seal.'");
  assert.equal(
    e.spec?.triggers[0]?.when ?? e.partial?.triggers[0]?.when,
    'payload.condition == "contaminated"',
  );
});

test('property: words inside a text are never corrected, whatever the slip', () => {
  const slip = fc
    .tuple(fc.constantFrom('contaminated', 'damaged', 'chilled'), fc.nat(), fc.constantFrom('x', 'q', 'z'))
    .map(([v, i, ch]) => {
      const at = 1 + (i % (v.length - 2));
      return v.slice(0, at) + ch + v.slice(at + 1);
    });
  fc.assert(
    fc.property(slip, (typo) => {
      const d = draft(`damaged samples: flag them 'Looks ${typo} to me.'`);
      assert.equal(d.publishable, true, JSON.stringify(d.questions));
      assert.equal((d.spec!.steps[0] as { args: Record<string, unknown> }).args.note, `Looks ${typo} to me.`);
    }),
    { numRuns: 40 },
  );
});

test('a value said with spaces for its dashes, as becoming it, or as a plural noun for its events', () => {
  const monitor: DraftCatalog = {
    tools: [
      tool({
        name: 'open_incident',
        description: 'Opens an incident for a service.',
        args: {
          type: 'object',
          required: ['service', 'severity'],
          properties: {
            service: { enum: ['payments-api', 'search'] },
            severity: { enum: ['sev1', 'sev2', 'sev3'] },
          },
        },
      }),
    ],
    events: [
      {
        type: 'alert.fired',
        payload: ['service', 'severity'],
        values: { service: ['payments-api', 'search'], severity: ['critical', 'warning'] },
      },
    ],
  };
  for (const [request, when] of [
    [
      'when payments api is critical: open a sev1 incident',
      'payload.service == "payments-api" and payload.severity == "critical"',
    ],
    [
      'when search goes critical: open a sev1 incident',
      'payload.service == "search" and payload.severity == "critical"',
    ],
    [
      'criticals on search: open a sev1 incident',
      'payload.severity == "critical" and payload.service == "search"',
    ],
    [
      'search warnings: open a sev3 incident',
      'payload.service == "search" and payload.severity == "warning"',
    ],
  ] as const) {
    const d = draftSpec(compileRequest(request, monitor), monitor);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec?.triggers[0]?.when, when, request);
  }
  const d = draftSpec(compileRequest('criticals on search: open a sev1 incident', monitor), monitor);
  assert.match((d.readBack?.assumed ?? []).join('\n'), /"criticals" is read as critical alerts/);
});

test('a grade left out ("anything but warnings", "no urgents"), a name that is no grade ("premiums") and a real word are never read as values', () => {
  const desk: DraftCatalog = {
    tools: [
      tool({
        name: 'refund_customer',
        description: 'Refunds the customer. Moves money.',
        destructive: true,
        cost: { fromArg: 'amount_usd' },
        args: {
          type: 'object',
          required: ['ticket_id', 'amount_usd'],
          properties: { ticket_id: { type: 'string' }, amount_usd: { type: 'number' } },
        },
      }),
    ],
    events: [
      {
        type: 'ticket.updated',
        payload: ['priority', 'tier', 'status', 'amount_usd'],
        values: { priority: ['low', 'urgent'], tier: ['basic', 'premium'], status: ['pending', 'solved'] },
      },
    ],
  };
  for (const [request, never] of [
    ['when a ticket is updated, refund it up to $50 for anything but urgents', /priority == "urgent"/],
    ['when a ticket is updated, refund up to $50, no urgents', /priority == "urgent"/],
    ['when a ticket is updated, refund $20 of their premiums', /tier == "premium"/],
    ['when a ticket is updated and it is spending, refund it up to $50', /status == "pending"/],
  ] as const) {
    const d = draftSpec(compileRequest(request, desk), desk);
    assert.doesNotMatch((d.spec ?? d.partial)?.triggers[0]?.when ?? '', never, request);
  }
});
