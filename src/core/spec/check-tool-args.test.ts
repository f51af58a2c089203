import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { KeelError } from '../errors.ts';
import { type JsonSchema, validateValue } from '../tools/index.ts';
import type { ToolSchemas } from './check-tool-args.ts';
import type { EventLike } from './event-like.ts';
import { parseSpec } from './parse-spec.ts';
import { resolveArgs } from './resolve-args.ts';
import type { SpecProblem } from './spec-problem.ts';
import { validateSpec } from './validate-spec.ts';

const ticketId = { type: 'string', pattern: '^T-[0-9]+$' };
const TOOLS: Record<string, ToolSchemas> = {
  issue_refund: {
    args: {
      type: 'object',
      required: ['ticket_id', 'amount_usd'],
      properties: {
        ticket_id: ticketId,
        amount_usd: { type: 'number', exclusiveMinimum: 0, multipleOf: 0.01 },
      },
      additionalProperties: false,
    },
    result: {
      type: 'object',
      required: ['refund_id', 'amount_usd'],
      properties: { refund_id: { type: 'string' }, amount_usd: { type: 'number' } },
    },
  },
  draft_reply: {
    args: {
      type: 'object',
      required: ['ticket_id', 'body'],
      properties: { ticket_id: ticketId, body: { type: 'string', minLength: 1, maxLength: 4000 } },
      additionalProperties: false,
    },
  },
  shaped: {
    args: {
      type: 'object',
      required: ['mode'],
      properties: {
        mode: { enum: ['fast', 'slow'] },
        when: { type: 'string', format: 'date-time' },
        n: { type: 'integer', minimum: 1 },
        either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        list: { type: 'array', items: { type: 'string' }, maxItems: 3 },
        nested: {
          type: 'object',
          required: ['id'],
          properties: { id: { type: 'string' }, flag: { type: 'boolean' } },
        },
      },
    },
  },
};
const describeTool = (name: string) => TOOLS[name];

function specWith(tool: string, args: unknown, first?: { tool: string; args: unknown }) {
  return {
    id: 'w',
    version: 1,
    status: 'DRAFT',
    steps: [...(first ? [{ name: 'first', ...first }] : []), { name: 'step', tool, args }],
    limits: { maxSteps: 2, maxCostUsd: 50 },
  };
}

function problemsOf(spec: unknown): SpecProblem[] {
  try {
    validateSpec(spec, 'w.json', { describeTool });
    return [];
  } catch (e) {
    return (e as KeelError).details.problems as SpecProblem[];
  }
}

describe('checkToolArgs: literal arguments and required fields', () => {
  it('refuses a literal that cannot fit, and a required argument left out (the README cases)', () => {
    assert.deepEqual(
      problemsOf(specWith('issue_refund', { ticket_id: 'T-1', amount_usd: 'lots' })).map((p) => [
        p.field,
        p.message,
      ]),
      [
        [
          'steps[0].args.amount_usd',
          'does not fit tool issue_refund: type mismatch (expected number, got string "lots")',
        ],
      ],
    );
    assert.deepEqual(
      problemsOf(specWith('draft_reply', { ticket_id: '{{event.subject}}' })).map((p) => [
        p.field,
        p.message,
      ]),
      [['steps[0].args.body', 'is missing; tool draft_reply requires it']],
    );
  });

  it('reads a cent amount as exactly that: 19.99, 4.35 and 1.13 fit multipleOf 0.01, 19.999 does not', () => {
    for (const amount_usd of [19.99, 4.35, 1.13])
      assert.deepEqual(
        problemsOf(specWith('issue_refund', { ticket_id: 'T-1', amount_usd })),
        [],
        String(amount_usd),
      );
    assert.deepEqual(
      problemsOf(specWith('issue_refund', { ticket_id: 'T-1', amount_usd: 19.999 })).map((p) => p.field),
      ['steps[0].args.amount_usd'],
    );
  });

  it('locates the problem in YAML at the argument (a missing one at the args mapping)', () => {
    const text = `id: w
version: 1
status: DRAFT
steps:
  - name: reply
    tool: draft_reply
    args:
      ticket_id: "{{event.subject}}"
  - name: refund
    tool: issue_refund
    args: {ticket_id: T-1, amount_usd: lots}
limits: {maxSteps: 2, maxCostUsd: 50}
`;
    assert.throws(
      () => parseSpec(text, 'w.yaml', { describeTool }),
      (e: KeelError) =>
        JSON.stringify(
          (e.details.problems as SpecProblem[]).map((p) => `${p.line}:${p.column} ${p.field}`),
        ) === JSON.stringify(['8:7 steps[0].args.body', '11:40 steps[1].args.amount_usd']),
    );
  });

  it('agrees exactly with the run-time check when every argument is literal', () => {
    const value = fc.oneof(
      fc.constantFrom('T-1', 'T-x', '', 'fast', 'slow', '2026-01-31T12:00:00Z', 'later'),
      fc.constantFrom(0, 1, 2.5, -3, 0.001, 12.34),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.constantFrom('a', 1), { maxLength: 4 }),
      fc.record({ id: fc.constantFrom('x', 1), flag: fc.constantFrom(true, 'no') }, { requiredKeys: [] }),
    );
    const keys = fc.constantFrom(
      'ticket_id',
      'amount_usd',
      'body',
      'mode',
      'when',
      'n',
      'either',
      'list',
      'nested',
      'extra',
    );
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(TOOLS)), fc.dictionary(keys, value), (tool, args) => {
        const runtime = validateValue(TOOLS[tool]!.args as JsonSchema, args);
        const found = problemsOf(specWith(tool, args));
        assert.equal(found.length > 0, runtime.length > 0, JSON.stringify({ tool, args, runtime, found }));
      }),
      { numRuns: 400 },
    );
  });
});

describe('checkToolArgs: templates', () => {
  it('checks the type of a template whose type is known, and nothing else about it', () => {
    const fields = (spec: unknown) => problemsOf(spec).map((p) => [p.field, p.message]);
    assert.deepEqual(
      fields(specWith('issue_refund', { ticket_id: 'T-1', amount_usd: '{{event.subject}}' })),
      [
        [
          'steps[0].args.amount_usd',
          '"{{event.subject}}" is always a string, but tool issue_refund expects number',
        ],
      ],
    );
    assert.deepEqual(
      fields(specWith('issue_refund', { ticket_id: 'T-1', amount_usd: 'USD {{random.float}}' })),
      [
        [
          'steps[0].args.amount_usd',
          '"USD {{random.float}}" is always a string, but tool issue_refund expects number',
        ],
      ],
    );
    // A string template may still fail the pattern: only its value will tell.
    assert.deepEqual(fields(specWith('issue_refund', { ticket_id: '{{clock.now}}', amount_usd: 1 })), []);
    // Unknown types: a payload field, env, a model slot.
    assert.deepEqual(
      fields(specWith('issue_refund', { ticket_id: 'T-1', amount_usd: '{{event.payload.a}}' })),
      [],
    );
    assert.deepEqual(
      fields(specWith('shaped', { mode: '{{event.payload.m}}', nested: '{{event.payload}}' })),
      [],
    );
    // An earlier step's output has its tool's result type.
    const first = { tool: 'issue_refund', args: { ticket_id: 'T-1', amount_usd: 1 } };
    assert.deepEqual(
      fields(
        specWith(
          'issue_refund',
          { ticket_id: '{{steps.first.output.refund_id}}', amount_usd: '{{steps.first.output.amount_usd}}' },
          first,
        ),
      ),
      [],
    );
    assert.deepEqual(
      fields(
        specWith('issue_refund', { ticket_id: 'T-1', amount_usd: '{{steps.first.output.refund_id}}' }, first),
      ),
      [
        [
          'steps[1].args.amount_usd',
          '"{{steps.first.output.refund_id}}" is always a string, but tool issue_refund expects number',
        ],
      ],
    );
  });

  it('never refuses arguments that a run could resolve into valid ones (any event, any source values)', () => {
    const templated = fc.constantFrom(
      '{{event.subject}}',
      '{{event.payload.a}}',
      '{{event.payload.b}}',
      '{{event.payload}}',
      '{{clock.now}}',
      '{{random.float}}',
      'T-{{event.payload.a}}',
      '{{event.payload.a}}{{event.payload.b}}',
    );
    // A template, the literal that fits (first), or one that does not.
    const or = (fits: unknown, ...not: unknown[]) =>
      fc.oneof(
        { arbitrary: templated, weight: 2 },
        { arbitrary: fc.constant(fits), weight: 2 },
        { arbitrary: fc.constantFrom(fits, ...not), weight: 1 },
      );
    const FIELDS: Record<string, fc.Arbitrary<unknown>> = {
      ticket_id: or('T-1', 'bad'),
      amount_usd: or(5, 'lots', -1),
      body: or('hi', ''),
      mode: or('fast', 'x'),
      when: or('2026-01-31T12:00:00Z', 'later'),
      n: or(2, 0, 1.5),
      either: or('a', 1, true),
      list: fc.oneof(templated, fc.array(or('a', 1), { maxLength: 4 })),
      nested: fc.oneof(templated, fc.record({ id: or('x', 1), flag: or(true, 'no') }, { requiredKeys: [] })),
      extra: or('{{event.payload.a}}', 1),
    };
    const argsFor = (tool: string) => {
      const schema = TOOLS[tool]!.args as { properties: object; required: string[] };
      const props = Object.keys(schema.properties);
      const keys = [...props, ...(props.length > 3 ? [] : ['extra'])];
      // Required arguments are always given here (leaving one out is judged exactly above).
      return fc.record(Object.fromEntries(keys.map((k) => [k, FIELDS[k]!])), {
        requiredKeys: schema.required,
      });
    };
    const payloadValue = fc.constantFrom('T-7', '7', 'fast', '2026-01-31T12:00:00Z', 3, 4.5, true, {
      id: 'x',
    });
    let reached = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(TOOLS)).chain((tool) => fc.tuple(fc.constant(tool), argsFor(tool))),
        fc.record({ a: payloadValue, b: payloadValue }, { requiredKeys: [] }),
        fc.constantFrom('T-3', 'hello'),
        ([tool, args], payload, subject) => {
          const event: EventLike = {
            id: 'e',
            type: 't',
            tenant: 'a',
            source: 's',
            subject,
            payload,
            time: '2026-01-31T12:00:00Z',
          };
          const resolved = resolveArgs(args, {
            event,
            steps: {},
            draw: (ref) => (ref.name === 'float' ? 0.25 : '2026-01-31T12:00:00.000Z'),
          });
          if (!resolved.ok) return;
          if (validateValue(TOOLS[tool]!.args as JsonSchema, resolved.value).length > 0) return;
          reached++;
          // This run would pass the tool's schema: the spec must not have been refused.
          assert.deepEqual(
            problemsOf(specWith(tool, args)),
            [],
            JSON.stringify({ tool, args, payload, subject }),
          );
        },
      ),
      { numRuns: 1000 },
    );
    assert.ok(reached > 40, `only ${reached} of 1000 cases resolved into valid arguments`);
  });
});
