import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSpec } from '../spec/index.ts';
import { diffSpecs } from './diff-specs.ts';

const SPEC = `
id: access
version: 1
status: LIVE
triggers: [{event: access.requested}]
steps:
  - {name: grant, tool: grant_access, args: {user: "{{ event.subject }}"}}
  - name: cool_off
    wait: {for: 1h}
  - name: until_expiry
    wait: {until: "{{ steps.grant.output.expiresAt }}"}
  - {name: revoke, tool: revoke_access, args: {user: "{{ event.subject }}"}}
limits: {maxSteps: 5, maxCostUsd: 0}
`;
const V1 = parseSpec(SPEC, 'v1.yaml');
const v2 = (edit: (y: string) => string) =>
  parseSpec(edit(SPEC).replace('version: 1', 'version: 2'), 'v2.yaml');
const flow = (d: ReturnType<typeof diffSpecs>) =>
  d.changes.filter((c) => c.area === 'flow').map((c) => [c.behaviour, c.text]);

test('keel diff: a wait written differently with the same time or meaning is not a behaviour change', () => {
  const d = diffSpecs(
    V1,
    v2((y) =>
      y
        .replace('{for: 1h}', '{for: 60m}')
        .replace('{{ steps.grant.output.expiresAt }}', '{{steps.grant.output.expiresAt}}'),
    ),
  );
  assert.deepEqual(flow(d), [
    [
      false,
      'The wait cool_off is written differently — for 60m, was for 1h — the same time: not a behaviour change.',
    ],
    [
      false,
      'The wait until_expiry is written differently — until "{{steps.grant.output.expiresAt}}", was "{{ steps.grant.output.expiresAt }}" — with the same meaning: not a behaviour change.',
    ],
  ]);
  assert.equal(d.sameBehaviour, true);
});

test('keel diff: a wait lasting longer, turned into an until, added or gone is a behaviour change', () => {
  const longer = diffSpecs(
    V1,
    v2((y) => y.replace('{for: 1h}', '{for: 61m}')),
  );
  assert.equal(longer.sameBehaviour, false);
  assert.deepEqual(flow(longer), [[true, 'The wait cool_off now lasts 61m (was 1h).']]);
  const other = diffSpecs(
    V1,
    v2((y) =>
      y.replace('{for: 1h}', '{until: "2026-03-01T09:00:00Z"}').replace('output.expiresAt', 'output.until'),
    ),
  );
  assert.deepEqual(flow(other), [
    [true, 'The wait cool_off now lasts until "2026-03-01T09:00:00Z" (was for 1h).'],
    [
      true,
      'The wait until_expiry now lasts until "{{ steps.grant.output.until }}" (was until "{{ steps.grant.output.expiresAt }}").',
    ],
  ]);
  const gone = diffSpecs(
    V1,
    v2((y) => y.replace(/ {2}- name: cool_off\n {4}wait: \{for: 1h\}\n/, '')),
  );
  assert.equal(gone.sameBehaviour, false);
  assert.deepEqual(flow(gone), [[true, 'Wait cool_off (for 1h) is gone: runs no longer suspend there.']]);
  const added = diffSpecs(
    parseSpec(SPEC.replace(/ {2}- name: cool_off\n {4}wait: \{for: 1h\}\n/, ''), 'a.yaml'),
    v2((y) => y),
  );
  assert.equal(added.sameBehaviour, false);
  assert.deepEqual(flow(added), [[true, 'New wait cool_off: a run suspends there for 1h, calling nothing.']]);
});
