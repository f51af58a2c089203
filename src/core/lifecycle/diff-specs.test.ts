import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { StepSpec, WorkflowSpec } from '../spec/index.ts';
import { diffSpecs } from './diff-specs.ts';

const spec = (
  version: number,
  steps: StepSpec[],
  when = 'payload.a < 5 and payload.b == 1',
): WorkflowSpec => ({
  id: 'desk',
  version,
  status: 'DRAFT',
  triggers: [{ event: 'refund.requested', when }],
  steps,
  limits: { maxSteps: 5, maxCostUsd: 50 },
});

const V1_STEPS: StepSpec[] = [
  { name: 'reply', tool: 'draft_reply', args: { ticket: '{{event.subject}}' } },
  {
    name: 'refund',
    tool: 'issue_refund',
    args: { amount: '{{event.payload.a}}', note: '{{steps.reply.output.id}}' },
  },
];
const V1 = spec(1, V1_STEPS);

describe('keel diff reports behaviour changes, and only those, as behaviour changes', () => {
  test('a renamed step, a reference to it and template spacing: no behaviour change, each said', () => {
    const v2 = spec(2, [
      { name: 'answer', tool: 'draft_reply', args: { ticket: '{{ event.subject }}' } },
      {
        name: 'refund',
        tool: 'issue_refund',
        args: { amount: '{{event.payload.a}}', note: '{{ steps.answer.output.id }}' },
      },
    ]);
    const d = diffSpecs(V1, v2);
    assert.deepEqual([d.same, d.sameBehaviour], [false, true]);
    assert.deepEqual(
      d.changes.map((c) => [c.behaviour, c.text]),
      [
        [
          false,
          'Step reply is renamed answer: the same tool with the same arguments, not a behaviour change.',
        ],
        [
          false,
          'Step answer: argument ticket is written differently — "{{ event.subject }}", was "{{event.subject}}" — with the same meaning: not a behaviour change.',
        ],
        [
          false,
          'Step refund: argument note is written differently — "{{ steps.answer.output.id }}", was "{{steps.reply.output.id}}" — with the same meaning: not a behaviour change.',
        ],
      ],
    );
  });

  test('template spacing alone is no behaviour change', () => {
    const v2 = spec(2, [{ ...V1_STEPS[0]!, args: { ticket: '{{ event.subject }}' } }, V1_STEPS[1]!]);
    const d = diffSpecs(V1, v2);
    assert.equal(d.sameBehaviour, true);
    assert.match(d.changes[0]!.text, /argument ticket is written differently/);
  });

  test('an equivalent trigger condition is no behaviour change; one that only looks alike is', () => {
    const reordered = diffSpecs(V1, {
      ...V1,
      version: 2,
      triggers: [{ event: 'refund.requested', when: '(payload.b == 1) and 5 > payload.a' }],
    });
    assert.equal(reordered.sameBehaviour, true);
    assert.deepEqual(
      reordered.changes.map((c) => [c.area, c.behaviour]),
      [['trigger', false]],
    );
    assert.match(
      reordered.changes[0]!.text,
      /written differently .* with the same meaning: not a behaviour change/,
    );
    const a = spec(1, V1_STEPS, 'payload.a < 5');
    const b = spec(2, V1_STEPS, 'not (payload.a >= 5)');
    const d = diffSpecs(a, b);
    assert.equal(d.sameBehaviour, false, 'a missing amount starts the second, not the first');
    assert.deepEqual(
      d.changes.map((c) => c.text),
      [
        'The condition of its trigger on refund.requested changes: it starts when not (payload.a >= 5), where it started when payload.a < 5; an event that meets one and not the other starts only one of the two versions.',
      ],
    );
    const other = diffSpecs(a, { ...b, triggers: [{ event: 'refund.approved' }] });
    assert.deepEqual(
      other.changes.map((c) => c.text),
      ['Now also starts on refund.approved.', 'No longer starts on refund.requested when payload.a < 5.'],
    );
  });

  test('a rename with other arguments, another tool, or another order is a behaviour change', () => {
    const otherArgs = spec(2, [
      { name: 'answer', tool: 'draft_reply', args: { ticket: '{{event.payload.b}}' } },
      { ...V1_STEPS[1]!, args: { amount: '{{event.payload.a}}', note: '{{steps.answer.output.id}}' } },
    ]);
    const d = diffSpecs(V1, otherArgs);
    assert.equal(d.sameBehaviour, false);
    assert.deepEqual(
      d.changes.filter((c) => c.behaviour).map((c) => c.text),
      [
        'New step answer (step 1) calls draft_reply.',
        'Step refund: argument note is "{{steps.answer.output.id}}" (was "{{steps.reply.output.id}}").',
        'Step reply (which called draft_reply) is gone.',
      ],
    );
    const swapped = diffSpecs(V1, spec(2, [V1_STEPS[1]!, V1_STEPS[0]!]));
    assert.equal(swapped.sameBehaviour, false);
    assert.match(swapped.changes.map((c) => c.text).join(' '), /moved from position 1 to 2/);
  });

  test('names swapped between steps, references following them, are renames; a reference left behind is not', () => {
    const three = (names: [string, string, string], ref: string) =>
      spec(names[0] === 'reply' ? 1 : 2, [
        { name: names[0], tool: 'draft_reply', args: { ticket: '{{event.subject}}' } },
        { name: names[1], tool: 'tag_ticket', args: { ticket: '{{event.subject}}', tag: 'refund' } },
        {
          name: names[2],
          tool: 'issue_refund',
          args: { amount: '{{event.payload.a}}', note: `{{steps.${ref}.output.id}}` },
        },
      ]);
    const v1 = three(['reply', 'tag', 'refund'], 'reply');
    const swapped = diffSpecs(v1, three(['tag', 'reply', 'refund'], 'tag'));
    assert.deepEqual([swapped.same, swapped.sameBehaviour], [false, true]);
    assert.deepEqual(
      swapped.changes.map((c) => [c.behaviour, c.text]),
      [
        [false, 'Step reply is renamed tag: the same tool with the same arguments, not a behaviour change.'],
        [false, 'Step tag is renamed reply: the same tool with the same arguments, not a behaviour change.'],
        [
          false,
          'Step refund: argument note is written differently — "{{steps.tag.output.id}}", was "{{steps.reply.output.id}}" — with the same meaning: not a behaviour change.',
        ],
      ],
    );
    // The reference still says reply, which now names the tagging step: it reads another step.
    const leftBehind = diffSpecs(v1, three(['tag', 'reply', 'refund'], 'reply'));
    assert.equal(leftBehind.sameBehaviour, false);
  });

  test('tests, gates and the description do not change behaviour; limits do', () => {
    const d = diffSpecs(V1, {
      ...V1,
      version: 2,
      description: 'now described',
      promotion: { live: { minComparisons: 30 } },
    });
    assert.deepEqual([d.same, d.sameBehaviour], [false, true]);
    const capped = diffSpecs(V1, { ...V1, version: 2, limits: { ...V1.limits, maxCostUsd: 60 } });
    assert.equal(capped.sameBehaviour, false);
  });
});
