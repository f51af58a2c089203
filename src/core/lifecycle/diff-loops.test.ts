import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FOREACH_SPEC } from '../../../test/helpers/foreach-spec.ts';
import { parseSpec } from '../spec/index.ts';
import { diffSpecs } from './diff-specs.ts';

const V1 = parseSpec(FOREACH_SPEC, 'v1.yaml');
const v2 = (edit: (y: string) => string) =>
  parseSpec(edit(FOREACH_SPEC).replace('version: 1', 'version: 2'), 'v2.yaml');
const flow = (d: ReturnType<typeof diffSpecs>) =>
  d.changes.filter((c) => c.area === 'flow').map((c) => [c.behaviour, c.text]);

test('keel diff: another list or another max is a behaviour change; a respaced items template is not', () => {
  assert.deepEqual(
    flow(
      diffSpecs(
        V1,
        v2((y) => y.replace('{{ event.payload.lines }}', '{{event.payload.lines}}')),
      ),
    ),
    [
      [
        false,
        'The list loop refund_lines runs over is written differently — "{{event.payload.lines}}", was "{{ event.payload.lines }}" — with the same meaning: not a behaviour change.',
      ],
    ],
  );
  assert.deepEqual(
    flow(
      diffSpecs(
        V1,
        v2((y) =>
          y
            .replace('{{ event.payload.lines }}', '{{ event.payload.items }}')
            .replace('max: 3', 'max: 2')
            .replace('maxSteps: 8', 'maxSteps: 6'),
        ),
      ),
    ),
    [
      [true, 'Loop refund_lines now runs over {{ event.payload.items }} (was {{ event.payload.lines }}).'],
      [
        true,
        'Loop refund_lines now takes at most 2 items (was 3): a list of 3 to 3 items now fails the run where it ran.',
      ],
    ],
  );
});

test('keel diff: a loop added or gone, and a step moved into it', () => {
  const plain = parseSpec(
    FOREACH_SPEC.replace(
      / {2}- name: refund_lines[\s\S]*?\n {2}- \{name: reply/,
      '  - {name: refund, tool: issue_refund, args: {amount: 1}}\n  - {name: reply',
    )
      .replace('{{ steps.refund_lines.output }}', 'x')
      .replace('maxSteps: 8', 'maxSteps: 3'),
    'plain.yaml',
  );
  const added = flow(diffSpecs(plain, V1));
  assert.ok(
    added.some(
      ([b, t]) => b && t === 'Step refund now runs in the loop refund_lines (was at the top level).',
    ),
    JSON.stringify(added),
  );
  assert.ok(
    added.some(
      ([b, t]) =>
        b &&
        t ===
          'New loop refund_lines: its steps run once for each line of {{ event.payload.lines }}, at most 3.',
    ),
  );
  const gone = flow(
    diffSpecs(V1, parseSpec(plain && FOREACH_SPEC.replace('version: 1', 'version: 1'), 'x.yaml')),
  );
  assert.deepEqual(gone, []);
  const removed = flow(diffSpecs(V1, plain));
  assert.ok(
    removed.some(([b, t]) => b && t === 'Loop refund_lines is gone: its steps no longer run per item.'),
  );
});
