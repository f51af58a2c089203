import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FLOW_SPEC } from '../../../test/helpers/flow-spec.ts';
import { parseSpec } from '../spec/index.ts';
import { diffSpecs } from './diff-specs.ts';

const V1 = parseSpec(FLOW_SPEC, 'v1.yaml');
const v2 = (edit: (y: string) => string) =>
  parseSpec(edit(FLOW_SPEC).replace('version: 1', 'version: 2'), 'v2.yaml');
const flow = (d: ReturnType<typeof diffSpecs>) =>
  d.changes.filter((c) => c.area === 'flow').map((c) => [c.behaviour, c.text]);

describe('keel diff on conditions and choices', () => {
  test('a changed if or branch condition is a behaviour change; one of the same meaning is not', () => {
    const d = diffSpecs(
      V1,
      v2((y) =>
        y
          .replace('if: payload.refund_amount > 50', 'if: payload.refund_amount > 100')
          .replace(
            'when: steps.lookup.output.tier == "gold"',
            'when: "\\"gold\\" == steps.lookup.output.tier"',
          ),
      ),
    );
    assert.equal(d.sameBehaviour, false);
    assert.deepEqual(flow(d), [
      [
        true,
        'The condition of step tag_review changes: it runs only if payload.refund_amount > 100, where it ran only if payload.refund_amount > 50.',
      ],
      [
        false,
        'The condition of branch 2 of route is written differently — "\\"gold\\" == steps.lookup.output.tier", was "steps.lookup.output.tier == \\"gold\\"" — with the same meaning: not a behaviour change.',
      ],
    ]);
  });

  test('an added condition, a dropped else and a step moved out of a branch each say so', () => {
    const d = diffSpecs(
      V1,
      v2((y) =>
        y
          .replace('maxSteps: 5', 'maxSteps: 6')
          .replace(
            '  - {name: reply, tool: send_reply, args: {text: done}}',
            '  - {name: reply, tool: send_reply, args: {text: done}, if: payload.reply}',
          )
          .replace(
            '    else:\n      - {name: plain_refund, tool: refund, args: {amount: "{{ event.payload.refund_amount }}"}}\n',
            '  - {name: plain_refund, tool: refund, args: {amount: "{{ event.payload.refund_amount }}"}}\n',
          ),
      ),
    );
    assert.deepEqual(flow(d), [
      [true, 'Step reply now runs only if payload.reply; otherwise it is skipped.'],
      [true, 'Choice route no longer has an else: when no branch holds, nothing runs.'],
      [true, 'Step plain_refund now runs at the top level (was in the else of route).'],
    ]);
    assert.equal(diffSpecs(V1, V1).same, true);
  });
});

describe('keel diff on parallel steps', () => {
  const P1 = `
id: enrich
version: 1
status: LIVE
triggers: [{event: ticket.opened}]
steps:
  - name: enrich
    parallel:
      join: all
      branches:
        crm: [{name: lookup_crm, tool: crm_lookup}]
        billing: [{name: lookup_billing, tool: billing_lookup}]
  - {name: reply, tool: send_reply, args: {text: done}}
limits: {maxSteps: 5, maxCostUsd: 0}
`;
  const p2 = (edit: (y: string) => string) =>
    parseSpec(edit(P1).replace('version: 1', 'version: 2'), 'v2.yaml');
  test('a join changed, a branch added, a branch gone, a step moved out of a branch are behaviour changes', () => {
    const d = diffSpecs(
      parseSpec(P1, 'v1.yaml'),
      p2((y) =>
        y
          .replace('join: all', 'join: first')
          .replace(
            'billing: [{name: lookup_billing, tool: billing_lookup}]',
            'tickets: [{name: lookup_tickets, tool: tickets}]',
          ),
      ),
    );
    assert.equal(d.sameBehaviour, false);
    const texts = flow(d).map(([, t]) => t);
    assert.ok(
      texts.includes(
        'Parallel enrich now joins first (was all): the step after it runs once one branch finishes, and the others are cut.',
      ),
      texts.join('\n'),
    );
    assert.ok(texts.includes('Parallel enrich has a new branch tickets.'));
    assert.ok(texts.includes('Branch billing of parallel enrich is gone.'));
  });
  test('a parallel added or gone, and a step moved into a branch', () => {
    const plain = parseSpec(
      P1.replace(
        / {2}- name: enrich[\s\S]*?(?= {2}- \{name: reply)/,
        '  - {name: lookup_crm, tool: crm_lookup}\n',
      ),
      'v0.yaml',
    );
    const texts = flow(diffSpecs(plain, parseSpec(P1.replace('version: 1', 'version: 2'), 'v2.yaml'))).map(
      ([, t]) => t,
    );
    assert.ok(
      texts.includes('New parallel enrich: branches crm, billing run at the same time, joining all.'),
      texts.join('\n'),
    );
    assert.ok(
      texts.includes('Step lookup_crm now runs in branch crm of parallel enrich (was at the top level).'),
      texts.join('\n'),
    );
    const back = flow(
      diffSpecs(
        parseSpec(P1, 'v1.yaml'),
        parseSpec(
          P1.replace(
            / {2}- name: enrich[\s\S]*?(?= {2}- \{name: reply)/,
            '  - {name: lookup_crm, tool: crm_lookup}\n',
          ).replace('version: 1', 'version: 2'),
          'v2.yaml',
        ),
      ),
    ).map(([, t]) => t);
    assert.ok(
      back.includes('Parallel enrich is gone: its steps no longer run at the same time.'),
      back.join('\n'),
    );
  });
});
