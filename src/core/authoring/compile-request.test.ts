import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { supportDeskCatalog } from '../../../test/authoring/support-desk-catalog.ts';
import { toolSteps } from '../spec/index.ts';
import type { ToolDescriptor } from '../tools/index.ts';
import { compileRequest, type DraftCatalog, draftSpec } from './index.ts';

const catalog: DraftCatalog = {
  tools: supportDeskCatalog(),
  events: [
    { type: 'refund.requested', payload: ['refund_amount', 'currency', 'reason'] },
    { type: 'ticket.resolved', payload: ['resolution'] },
    { type: 'ticket.opened', payload: [] },
  ],
};

test('the refund desk request compiles to the example spec, which validates', () => {
  const d = draftSpec(
    compileRequest(
      'When a refund is requested in USD, reply "Thanks for reaching out. We are processing your refund request now." and then refund anyone under $50.',
      catalog,
    ),
    catalog,
  );
  assert.deepEqual(d.questions, []);
  assert.equal(d.publishable, true);
  assert.equal(d.spec?.status, 'DRAFT');
  assert.deepEqual(d.spec?.triggers, [{ event: 'refund.requested', when: 'payload.currency == "USD"' }]);
  assert.deepEqual(
    (d.spec ? toolSteps(d.spec) : undefined)?.map((s) => [s.name, s.tool, s.args]),
    [
      [
        'reply',
        'draft_reply',
        {
          ticket_id: '{{event.subject}}',
          body: 'Thanks for reaching out. We are processing your refund request now.',
        },
      ],
      [
        'refund',
        'issue_refund',
        { ticket_id: '{{event.subject}}', amount_usd: '{{event.payload.refund_amount}}' },
      ],
    ],
  );
  assert.deepEqual(d.spec?.limits, { maxSteps: 2, maxCostUsd: 50 });
  assert.match(d.readBack?.summary ?? '', /^When a refund is requested, if its currency is "USD": 1\. /);
});

test('two tools that both close a ticket make a question naming both, never a guess', () => {
  const archive: ToolDescriptor = {
    name: 'archive_ticket',
    description: 'Moves a ticket to the archive, which closes it.',
    args: { type: 'object', required: ['ticket_id'], properties: { ticket_id: { type: 'string' } } },
    destructive: true,
    effect: 'write',
    idempotent: true,
    scopes: [],
  };
  const both = { ...catalog, tools: [...catalog.tools, archive] };
  const d = draftSpec(compileRequest('When a ticket is resolved, close it.', both), both);
  assert.equal(d.publishable, false);
  const q = d.questions.find((x) => x.candidates?.includes('archive_ticket'));
  assert.ok(q, JSON.stringify(d.questions));
  assert.deepEqual(q.candidates, ['archive_ticket', 'close_ticket']);
  assert.match(q.question, /archive_ticket or close_ticket\?/);
});

test('what the spec cannot say is asked: no trigger, an unknown condition, approval of a safe tool', () => {
  const ask = (r: string) => draftSpec(compileRequest(r, catalog), catalog);
  assert.ok(ask('Tag it urgent').questions.some((q) => q.about === 'triggers'));
  assert.ok(
    ask('When a refund is requested, refund it on weekdays, under $50').questions.some((q) =>
      /weekdays/.test(q.question),
    ),
  );
  assert.ok(
    ask('When a ticket is opened, ask me before tagging it as new').questions.some((q) =>
      /not destructive/.test(q.question),
    ),
  );
  assert.ok(
    ask('When a refund is requested, refund it').questions.some((q) => q.about === 'limits.maxCostUsd'),
  );
  assert.ok(
    ask('When a refund is requested, reply to the customer').questions.some((q) => /body/.test(q.question)),
  );
});

const TOOL_NAMES = new Set(catalog.tools.map((t) => t.name));
const words = [
  'when',
  'a',
  'refund',
  'is',
  'requested',
  'ticket',
  'resolved',
  'opened',
  'reply',
  'then',
  'close',
  'tag',
  'it',
  'under',
  '$50',
  'in',
  'usd',
  'ask',
  'me',
  'before',
  'closing',
  'never',
  'without',
  'approval',
  'at',
  'most',
  '3',
  'steps',
  'no',
  'more',
  'than',
  '$200',
  'run',
  ',',
  '.',
  '"thanks"',
  'for',
  'vip',
  'customers',
  'archive',
  'and',
  'issue',
  'send',
  'if',
  'only',
  'email',
];

test('property: the same request and catalog give the same draft; no draft names a tool outside the catalog', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.array(fc.constantFrom(...words), { maxLength: 30 }).map((w) => w.join(' ')),
        fc.string({ maxLength: 200 }),
      ),
      (request) => {
        const a = draftSpec(compileRequest(request, catalog), catalog);
        const b = draftSpec(
          compileRequest(request, {
            tools: [...catalog.tools].reverse(),
            events: [...(catalog.events ?? [])].reverse(),
          }),
          catalog,
        );
        assert.deepEqual(a, b);
        for (const s of [...(a.spec ? toolSteps(a.spec) : []), ...(a.partial ? toolSteps(a.partial) : [])])
          assert.ok(TOOL_NAMES.has(s.tool), s.tool);
        // Every draft either validates without questions or asks something.
        assert.ok(a.publishable ? a.spec !== undefined && a.questions.length === 0 : a.questions.length > 0);
        if (a.spec) assert.equal(a.spec.status, 'DRAFT');
      },
    ),
    { numRuns: 400 },
  );
});

test('a negated bound is a cap, never a condition that the amount be over it', () => {
  for (const request of [
    'When a refund is requested, reply "On it." then refund them; never refund more than $50 a run.',
    'When a refund is requested, reply "On it." then refund them, but do not refund over $50.',
  ]) {
    const d = draftSpec(compileRequest(request, catalog), catalog);
    assert.deepEqual(d.questions, [], request);
    assert.deepEqual(d.spec?.triggers, [{ event: 'refund.requested' }], request);
    assert.equal(d.spec?.limits.maxCostUsd, 50, request);
    assert.deepEqual(
      (d.spec ? toolSteps(d.spec) : undefined)?.map((s) => s.tool),
      ['draft_reply', 'issue_refund'],
      request,
    );
  }
});
