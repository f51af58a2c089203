import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FLOW_SPEC } from '../../../test/helpers/flow-spec.ts';
import { parseSpec } from '../spec/index.ts';
import { explainSpec } from './explain-spec.ts';

test('keel explain reads a condition and a choice in words, each branch with its steps', () => {
  const r = explainSpec(parseSpec(FLOW_SPEC, 'desk.yaml'), []);
  assert.match(
    r.steps[1]!,
    /^2\. tag_review \(add_tag\): .*; only if its refund_amount is over \$50, else skipped\.$/,
  );
  assert.deepEqual(
    r.steps.slice(2, 10).map((l) => l.replace(/ \(.*$/, '')),
    [
      '3. route: chooses one way, the first whose condition holds:',
      '   if its refund_amount is over $50:',
      '     3.1.1. ask_lead',
      `   otherwise, if step lookup's tier is "gold":`,
      '     3.2.1. gold_note',
      '     3.2.2. gold_refund',
      '   otherwise:',
      '     3.else.1. plain_refund',
    ],
  );
  assert.match(
    r.summary,
    /3\. if its refund_amount is over \$50: ask_lead; otherwise, if step lookup's tier is "gold": add_tag, then refund; otherwise: refund; 4\. send_reply\.$/,
  );
});

const WAIT_SPEC = `
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
    else:
      - {name: note, tool: add_tag, args: {tag: kept}}
  - {name: revoke, tool: revoke_access, args: {user: "{{ event.subject }}"}}
limits: {maxSteps: 5, maxCostUsd: 0}
`;

test('keel explain shows a wait step: "then wait 15 minutes", "then wait until" its instant in words', () => {
  const r = explainSpec(parseSpec(WAIT_SPEC, 'access.yaml'), []);
  assert.equal(r.steps[1], '2. cool_off: then wait 15 minutes; calls nothing.');
  assert.equal(
    r.steps[4],
    "     3.1.1. until_expiry: then wait until step grant's expiresAt; calls nothing.",
  );
  assert.match(r.summary, /: 1\. grant_access; 2\. wait 15 minutes; 3\. if step grant's kind is "temporary"/);
  assert.match(r.summary, /: wait until step grant's expiresAt; otherwise: add_tag; 4\. revoke_access\.$/);
  const lines = explainSpec(
    parseSpec(
      WAIT_SPEC.replace('{for: 15m}', '{for: 1d}').replace(
        '"{{ steps.grant.output.expiresAt }}"',
        '"2026-03-01T09:00:00Z"',
      ),
      'a.yaml',
    ),
    [],
  ).steps;
  assert.equal(lines[1], '2. cool_off: then wait 1 day; calls nothing.');
  assert.match(lines[4]!, /until_expiry: then wait until "2026-03-01T09:00:00Z"; calls nothing\.$/);
});

const PARALLEL_SPEC = `
id: enrich
version: 1
status: LIVE
triggers: [{event: ticket.opened}]
steps:
  - name: enrich
    parallel:
      join: first
      branches:
        crm: [{name: lookup_crm, tool: crm_lookup, args: {who: "{{ event.subject }}"}}]
        billing:
          - {name: lookup_billing, tool: billing_lookup, args: {who: "{{ event.subject }}"}}
          - {name: bill_total, tool: billing_total, args: {acct: "{{ steps.lookup_billing.output.acct }}"}}
  - {name: reply, tool: send_reply, args: {text: done}}
limits: {maxSteps: 5, maxCostUsd: 0}
`;

test('keel explain reads a parallel step: its branches at the same time, each with its steps, and how they join', () => {
  const r = explainSpec(parseSpec(PARALLEL_SPEC, 'enrich.yaml'), []);
  assert.deepEqual(
    r.steps.slice(0, 6).map((l) => l.replace(/ \(.*$/, '')),
    [
      '1. enrich: runs these branches at the same time, then goes on when the first of them finishes',
      '   branch crm:',
      '     1.crm.1. lookup_crm',
      '   branch billing:',
      '     1.billing.1. lookup_billing',
      '     1.billing.2. bill_total',
    ],
  );
  assert.match(
    r.summary,
    /1\. at the same time \(crm: crm_lookup; billing: billing_lookup, then billing_total\), then goes on when the first of them finishes/,
  );
});

test('keel explain reads a loop: over what, by which name, at most how many, its steps under it', async () => {
  const { FOREACH_SPEC } = await import('../../../test/helpers/foreach-spec.ts');
  const r = explainSpec(parseSpec(FOREACH_SPEC, 'refunds.yaml'), []);
  assert.equal(
    r.steps[1],
    "2. refund_lines: for each line of the event's lines, in order, at most 3 (a longer list fails the run before any of these calls):",
  );
  assert.match(r.steps[2]!, /^ {3}2\.1\. refund \(issue_refund\): .*the line's amount/);
  assert.match(r.steps[3]!, /^ {3}2\.2\. note \(add_note\)/);
  assert.match(r.summary, /2\. for each line \(at most 3\): issue_refund, then add_note; 3\. send_reply/);
});
