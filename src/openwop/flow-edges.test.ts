import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FLOW_SPEC } from '../../test/helpers/flow-spec.ts';
import { parseSpec } from '../core/spec/index.ts';
import { parseDefinition, specAsDefinition } from './definition.ts';

test("a spec's branches show in its OpenWOP graph as edges carrying their conditions", () => {
  const def = specAsDefinition(parseSpec(FLOW_SPEC, 'desk.yaml')) as {
    nodes: { id: string }[];
    edges: { id: string; sourceNodeId: string; targetNodeId: string; condition?: Record<string, unknown> }[];
  };
  assert.deepEqual(
    def.nodes.map((n) => n.id),
    ['lookup', 'tag_review', 'ask_lead', 'gold_note', 'gold_refund', 'plain_refund', 'reply'],
  );
  const e = (from: string, to: string) =>
    def.edges.filter((x) => x.sourceNodeId === from && x.targetNodeId === to).map((x) => x.condition ?? null);
  assert.deepEqual(e('lookup', 'tag_review'), [{ if: 'payload.refund_amount > 50' }]);
  assert.deepEqual(e('tag_review', 'gold_note'), [
    { choose: 'route', branch: 1, when: 'steps.lookup.output.tier == "gold"' },
  ]);
  // The tag skipped: straight from lookup into the branch.
  assert.deepEqual(e('lookup', 'plain_refund'), [
    { skipped: 'tag_review', unless: 'payload.refund_amount > 50', choose: 'route', branch: 'else' },
  ]);
  assert.deepEqual(e('gold_note', 'gold_refund'), [null]);
  assert.deepEqual(e('gold_refund', 'reply'), [null]);
  assert.equal(new Set(def.edges.map((x) => x.id)).size, def.edges.length, 'edge ids are unique');
});

test("a spec's waits show in its OpenWOP graph as keel.wait nodes on the way, and a definition cannot declare one", () => {
  const spec = parseSpec(
    `
id: access
version: 1
status: LIVE
triggers: [{event: access.requested}]
steps:
  - {name: grant, tool: grant_access, args: {user: "{{ event.subject }}"}}
  - name: cool_off
    wait: {for: 15m}
  - name: route
    choose:
      - when: steps.grant.output.kind == "temporary"
        steps:
          - name: until_expiry
            wait: {until: "{{ steps.grant.output.expiresAt }}"}
  - {name: revoke, tool: revoke_access, args: {user: "{{ event.subject }}"}}
limits: {maxSteps: 5, maxCostUsd: 0}
`,
    'access.yaml',
  );
  const def = specAsDefinition(spec) as {
    nodes: { id: string; typeId: string; config: Record<string, unknown> }[];
    edges: { sourceNodeId: string; targetNodeId: string; condition?: Record<string, unknown> }[];
  };
  assert.deepEqual(
    def.nodes.map((n) => [n.id, n.typeId, n.config]),
    [
      ['grant', 'grant_access', { user: '{{ event.subject }}' }],
      ['cool_off', 'keel.wait', { for: '15m' }],
      ['until_expiry', 'keel.wait', { until: '{{ steps.grant.output.expiresAt }}' }],
      ['revoke', 'revoke_access', { user: '{{ event.subject }}' }],
    ],
  );
  assert.deepEqual(
    def.edges.map((e) => [e.sourceNodeId, e.targetNodeId, e.condition ?? null]),
    [
      ['grant', 'cool_off', null],
      [
        'cool_off',
        'until_expiry',
        { choose: 'route', branch: 0, when: 'steps.grant.output.kind == "temporary"' },
      ],
      ['until_expiry', 'revoke', null],
      ['cool_off', 'revoke', { choose: 'route', branch: 'else' }],
    ],
  );
  assert.throws(
    () =>
      parseDefinition({
        id: 'w',
        name: 'w',
        version: '1',
        nodes: [{ id: 'pause', typeId: 'keel.wait', config: { for: '15m' } }],
        edges: [],
      }),
    /nodes\[0\]\.typeId: keel\.wait is how Keel draws a spec's wait step/,
  );
});

test("a spec's parallel step shows in its OpenWOP graph as fan-out edges and a join carrying its trigger rule", () => {
  const spec = (join: string) =>
    parseSpec(
      `
id: enrich
version: 1
status: LIVE
triggers: [{event: ticket.opened}]
steps:
  - {name: start, tool: note}
  - name: enrich
    parallel:
      join: ${join}
      branches:
        crm: [{name: lookup_crm, tool: crm_lookup}]
        billing: [{name: lookup_billing, tool: billing_lookup}, {name: bill_total, tool: billing_total}]
  - {name: reply, tool: send_reply, args: {text: done}}
limits: {maxSteps: 5, maxCostUsd: 0}
`,
      'enrich.yaml',
    );
  const edges = (join: string) =>
    (
      specAsDefinition(spec(join)) as {
        edges: { sourceNodeId: string; targetNodeId: string; triggerRule?: string }[];
      }
    ).edges.map((e) => [e.sourceNodeId, e.targetNodeId, e.triggerRule ?? null]);
  assert.deepEqual(edges('all'), [
    ['start', 'lookup_crm', null],
    ['start', 'lookup_billing', null],
    ['lookup_billing', 'bill_total', null],
    ['lookup_crm', 'reply', 'all_success'],
    ['bill_total', 'reply', 'all_success'],
  ]);
  assert.deepEqual(
    edges('first').filter((e) => e[1] === 'reply'),
    [
      ['lookup_crm', 'reply', 'any_success'],
      ['bill_total', 'reply', 'any_success'],
    ],
  );
});

test("OpenWOP's graph of a spec carries its steps' approval deadlines in the definition's metadata", () => {
  const spec = parseSpec(
    `id: refunds
version: 1
status: DRAFT
triggers: [{ event: go }]
steps:
  - { name: look, tool: lookup }
  - name: refund
    tool: refund
    approval: { timeout: 24h, then: { escalate: finance-leads } }
limits: { maxSteps: 2, maxCostUsd: 0 }
`,
    'r.yaml',
  );
  const def = specAsDefinition(spec) as { metadata: Record<string, unknown> };
  assert.deepEqual(def.metadata, {
    // biome-ignore lint/suspicious/noThenProperty: a step's approval declares `then`, as the spec writes it
    'keel.approvalDeadlines': { refund: { timeout: '24h', then: { escalate: 'finance-leads' } } },
  });
  const plain = specAsDefinition(parseSpec(FLOW_SPEC, 'desk.yaml')) as { metadata: Record<string, unknown> };
  assert.deepEqual(plain.metadata, {}, 'none declared: the metadata is as before');
});

test("OpenWOP's graph of a spec draws a loop as an iterator node: into its body, back after each item, out when done", async () => {
  const { FOREACH_SPEC } = await import('../../test/helpers/foreach-spec.ts');
  const def = specAsDefinition(parseSpec(FOREACH_SPEC, 'refunds.yaml')) as {
    nodes: { id: string; typeId: string; config: Record<string, unknown> }[];
    edges: { sourceNodeId: string; targetNodeId: string; condition?: Record<string, unknown> }[];
  };
  assert.deepEqual(
    def.nodes.map((n) => [n.id, n.typeId]),
    [
      ['lookup', 'get_order'],
      ['refund_lines', 'keel.forEach'],
      ['refund', 'issue_refund'],
      ['note', 'add_note'],
      ['reply', 'send_reply'],
    ],
  );
  assert.deepEqual(def.nodes[1]!.config, { items: '{{ event.payload.lines }}', as: 'line', max: 3 });
  assert.deepEqual(
    def.edges.map((e) => [e.sourceNodeId, e.targetNodeId, e.condition ?? null]),
    [
      ['lookup', 'refund_lines', null],
      ['refund_lines', 'refund', { forEach: 'refund_lines', each: 'line' }],
      ['refund', 'note', null],
      ['note', 'refund_lines', { forEach: 'refund_lines', next: true }],
      ['refund_lines', 'reply', { forEach: 'refund_lines', done: true }],
    ],
  );
  assert.throws(
    () =>
      parseDefinition({
        id: 'w',
        name: 'w',
        version: '1',
        nodes: [{ id: 'each', typeId: 'keel.forEach', config: {} }],
        edges: [],
      }),
    /nodes\[0\]\.typeId: keel\.forEach is how Keel draws a spec's loop/,
  );
});
