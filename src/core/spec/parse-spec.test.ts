import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode, isKeelError, type KeelError } from '../errors.ts';
import { toolSteps } from './flow-steps.ts';
import { SPEC_LIMITS } from './input-limits.ts';
import { parseSpec } from './parse-spec.ts';
import { MAX_PROBLEMS } from './spec-checker.ts';
import { specHash } from './spec-hash.ts';
import { formatProblem, type SpecProblem } from './spec-problem.ts';
import type { SpecOptions } from './workflow-spec.ts';

const YAML_SPEC = `# Refund anyone under $50.
id: refund-under-50
version: 1
status: DRAFT
description: Reply, then refund.
triggers:
  - event: refund.requested
    when: payload.currency == "USD" and payload.refund_amount < 50
steps:
  - name: reply
    tool: draft_reply
    args:
      ticket_id: "{{event.subject}}"
      body: Thanks for reaching out.
  - name: refund
    tool: issue_refund
    args:
      ticket_id: "{{ event.subject }}"
      amount_usd: "{{event.payload.refund_amount}}"
      meta: { tags: [a, b], n: 1.5, ok: true, none: null }
limits:
  maxSteps: 4
  maxCostUsd: 49.99
`;

const JSON_SPEC = `{
  "limits": { "maxCostUsd": 49.99, "maxSteps": 4 },
  "steps": [
    { "tool": "draft_reply", "name": "reply",
      "args": { "body": "Thanks for reaching out.", "ticket_id": "{{event.subject}}" } },
    { "name": "refund", "tool": "issue_refund", "args": {
      "meta": { "none": null, "ok": true, "n": 1.50, "tags": ["a", "b"] },
      "amount_usd": "{{event.payload.refund_amount}}", "ticket_id": "{{ event.subject }}" } }
  ],
  "triggers": [{ "when": "payload.currency == \\"USD\\" and payload.refund_amount < 50", "event": "refund.requested" }],
  "description": "Reply, then refund.",
  "status": "DRAFT", "version": 1, "id": "refund-under-50"
}`;

function problemsOf(text: string, options?: SpecOptions): SpecProblem[] {
  try {
    parseSpec(text, 'refund.yaml', options);
  } catch (e) {
    assert.ok(isKeelError(e) && e.code === ErrorCode.specInvalid, `unexpected error ${String(e)}`);
    return e.details.problems as SpecProblem[];
  }
  return assert.fail('expected the spec to be invalid');
}

const at = (p: SpecProblem | undefined) => `${p?.line}:${p?.column} ${p?.field}`;

describe('parseSpec', () => {
  it('parses YAML and the equivalent JSON to equal specs with equal hashes', () => {
    const fromYaml = parseSpec(YAML_SPEC, 'refund.yaml');
    const fromJson = parseSpec(JSON_SPEC, 'refund.json');
    assert.deepEqual(fromYaml, fromJson);
    assert.equal(specHash(fromYaml), specHash(fromJson));
    assert.equal(toolSteps(fromYaml)[1]!.args.meta && typeof toolSteps(fromYaml)[1]!.args.meta, 'object');
    assert.deepEqual(JSON.parse(JSON.stringify(fromYaml)), fromYaml);
  });

  it('locates validation problems at the offending node, in document order', () => {
    const text = YAML_SPEC.replace('status: DRAFT', 'status: live')
      .replace('tool: issue_refund', 'tool: issue_refnd')
      .replace('maxCostUsd: 49.99', 'maxCostUsd: fifty')
      .replace('    args:\n      ticket_id: "{{event', '    argz:\n      ticket_id: "{{event');
    const problems = problemsOf(text, { knownTool: (n) => n !== 'issue_refnd' });
    assert.deepEqual(problems.map(at), [
      '4:9 status',
      '12:5 steps[0].argz',
      '16:11 steps[1].tool',
      '23:15 limits.maxCostUsd',
    ]);
    assert.equal(formatProblem(problems[2]!), 'refund.yaml:16:11: steps[1].tool: unknown tool "issue_refnd"');
    assert.equal(
      formatProblem(problems[3]!),
      'refund.yaml:23:15: limits.maxCostUsd: expected a number >= 0 with at most 2 decimals, got "fifty"',
    );
  });

  it('puts the first problem and the count in the error message', () => {
    const text = YAML_SPEC.replace('version: 1', 'version: 0').replace('maxSteps: 4', 'maxSteps: x');
    assert.throws(() => parseSpec(text, 'refund.yaml'), {
      code: ErrorCode.specInvalid,
      message: 'refund.yaml:3:10: version: expected a positive whole number, got 0 (+1 more)',
    });
  });

  it('reports a missing field at the mapping that should hold it', () => {
    const [p] = problemsOf(YAML_SPEC.replace('    tool: draft_reply\n', ''));
    assert.equal(at(p), '10:5 steps[0].tool');
    assert.match(p!.message, /is missing; expected a tool name/);
  });

  it('points at the exact character of a condition syntax error', () => {
    const plain = problemsOf(YAML_SPEC.replace('payload.refund_amount < 50', 'payload.refund_amount =< 50'));
    assert.equal(at(plain[0]), '8:63 triggers[0].when');
    assert.match(plain[0]!.message, /invalid condition: use "==" to compare \(at character 53\)/);
    // Escaped quotes in the JSON string shift the column; it still lands on the end of the condition.
    const broken = JSON_SPEC.replace('refund_amount < 50', 'refund_amount <');
    const json = problemsOf(broken);
    const line = broken.split('\n')[9]!;
    assert.equal(at(json[0]), `10:${line.indexOf('<"') + 2} triggers[0].when`);
    const single = problemsOf(YAML_SPEC.replace(/when: .*/, "when: 'subject == ''it'' or'"));
    assert.equal(
      at(single[0]),
      `8:${'    when: '.length + "'subject == ''it'' or'".length} triggers[0].when`,
    );
  });

  it('reports duplicate keys with the field they duplicate, and still validates the rest', () => {
    const problems = problemsOf(
      YAML_SPEC.replace('    tool: issue_refund\n', '    tool: issue_refund\n    tool: x\n').replace(
        'version: 1',
        'version: -1',
      ),
    );
    assert.deepEqual(problems.map(at), ['3:10 version', '17:5 steps[1].tool']);
    assert.match(problems[1]!.message, /duplicate key/);
    const dup = problemsOf('{"id": "a", "id": "b"}').find((p) => /duplicate/.test(p.message));
    assert.equal(at(dup), '1:13 id');
  });

  it('reports YAML syntax errors without guessing past them', () => {
    const problems = problemsOf('id: x\nsteps: [1,\nlimits: {}\n');
    assert.ok(problems.length >= 1);
    assert.match(problems[0]!.message, /^YAML: /);
    assert.equal(problems[0]!.line !== undefined, true);
    assert.ok(problems.every((p) => p.message.startsWith('YAML')));
    assert.match(problemsOf('{"id": "x"')[0]!.message, /^YAML: /);
  });

  it('rejects several documents, unknown tags and collection keys', () => {
    assert.match(problemsOf(`${YAML_SPEC}---\nid: other\n`)[0]!.message, /multiple documents/);
    const tagged = problemsOf(YAML_SPEC.replace('body: Thanks', 'body: !!binary Thanks'));
    assert.equal(at(tagged[0]), '14:13 steps[0].args.body');
    assert.match(tagged[0]!.message, /Unresolved tag/);
    assert.match(problemsOf(`${YAML_SPEC}? [a, b]\n: 1\n`)[0]!.message, /keys must be plain strings/);
  });

  it('reports an empty document or a non-mapping top level', () => {
    for (const text of ['', '# only a comment\n', '- a\n- b\n', '"text"']) {
      const [p] = problemsOf(text);
      assert.match(p!.message, /expected a workflow spec mapping/);
    }
  });

  it('accepts aliases but reports self-referencing ones', () => {
    const aliased = YAML_SPEC.replace(
      'body: Thanks for reaching out.',
      'body: &b Thanks for reaching out.\n      copy: *b',
    );
    assert.equal(toolSteps(parseSpec(aliased, 'f'))[0]!.args.copy, 'Thanks for reaching out.');
    const laughs = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 8; i++)
      laughs.push(`${'abcdefgh'[i]}: &${'abcdefgh'[i]} [${`*${'abcdefgh'[i - 1]}, `.repeat(8)}]`);
    assert.match(problemsOf(`${laughs.join('\n')}\n`)[0]!.message, /cannot read the document: .*alias/i);
    const cyclic = YAML_SPEC.replace('body: Thanks for reaching out.', 'body: &b [*b]');
    assert.match(problemsOf(cyclic)[0]!.message, /refers to itself/);
  });

  it('rejects YAML numbers with no JSON form', () => {
    const problems = problemsOf(
      YAML_SPEC.replace('n: 1.5', 'n: .nan, m: -.inf, z: -0, big: 12345678901234567890'),
    );
    assert.deepEqual(
      problems.map((p) => p.field),
      ['steps[1].args.meta.n', 'steps[1].args.meta.m', 'steps[1].args.meta.z', 'steps[1].args.meta.big'],
    );
  });
});

describe('parseSpec: keys as they are read, and the size limits', () => {
  const withArgs = (args: string) =>
    `id: a\nversion: 1\nstatus: DRAFT\nsteps:\n  - name: s\n    tool: t\n    args: ${args}\nlimits: {maxSteps: 1, maxCostUsd: 0}\n`;

  it('reports keys that differ in the text but are one key in the value', () => {
    // 1 and "1", ~ and "", true and "true" are one key once read: the later one would win silently.
    for (const [args, field] of [
      ['{1: x, "1": y}', 'steps[0].args["1"]'],
      ['{~: x, "": y}', 'steps[0].args[""]'],
      ['{true: x, "true": y}', 'steps[0].args.true'],
      ['{a: 1, a: 2}', 'steps[0].args.a'],
    ]) {
      const problems = problemsOf(withArgs(args!));
      assert.deepEqual(
        problems.map((p) => [p.field, p.line, p.message]),
        [[field, 7, 'duplicate key; each field may appear only once']],
        args,
      );
    }
  });

  function limitOf(text: string): KeelError {
    try {
      parseSpec(text, 'big.yaml');
    } catch (e) {
      assert.ok(isKeelError(e), String(e));
      assert.equal(e.code, ErrorCode.payloadTooLarge, e.message);
      return e;
    }
    return assert.fail('expected payload_too_large');
  }

  it('refuses a text over maxBytes before parsing it, naming the limit', () => {
    const e = limitOf(withArgs(`{a: "${'é'.repeat(SPEC_LIMITS.maxBytes / 2)}"}`));
    assert.equal(e.details.limit, 'maxBytes');
    assert.equal(e.details.max, SPEC_LIMITS.maxBytes);
    assert.ok((e.details.got as number) > SPEC_LIMITS.maxBytes);
    assert.match(e.message, /^big\.yaml: \d+, more than the 262144 allowed bytes \(limit maxBytes\)$/);
  });

  it('refuses nesting past maxDepth, a string past maxStringLength and keys past maxKeys, located', () => {
    // Far too deep for the YAML parser itself (it overflows its stack): the same limit.
    const deeper = limitOf(`id: ${'['.repeat(10_000)}1${']'.repeat(10_000)}\n`);
    assert.deepEqual([deeper.details.limit, deeper.details.line], ['maxDepth', 1]);
    const deep = limitOf(withArgs(`${'['.repeat(40)}${']'.repeat(40)}`));
    assert.equal(deep.details.limit, 'maxDepth');
    assert.equal(deep.details.line, 7);
    assert.match(deep.details.field as string, /^steps\[0\]\.args(\[0\])+$/);
    const long = limitOf(withArgs(`{a: ${'x'.repeat(SPEC_LIMITS.maxStringLength + 1)}}`));
    assert.deepEqual(
      [long.details.limit, long.details.field, long.details.got],
      ['maxStringLength', 'steps[0].args.a', SPEC_LIMITS.maxStringLength + 1],
    );
    const many = limitOf(
      withArgs(`{${Array.from({ length: SPEC_LIMITS.maxKeys }, (_, i) => `k${i}: 1`).join(', ')}}`),
    );
    assert.equal(many.details.limit, 'maxKeys');
  });

  it('counts what aliases expand to: a small text that aliases a big list breaches maxKeys', () => {
    const list = `[${Array(2000).fill('x').join(',')}]`;
    const e = limitOf(withArgs(`{a: &a ${list}, b: *a, c: *a}`));
    assert.equal(e.details.limit, 'maxKeys');
    assert.equal(e.details.field, 'steps[0].args.c');
  });

  it('keeps at most MAX_PROBLEMS problems and counts the rest; each message is an excerpt', () => {
    const keys = Array.from({ length: 500 }, (_, i) => `unknown${i}: 1`).join('\n');
    let err: KeelError | undefined;
    try {
      parseSpec(`${keys}\nid: ${'x'.repeat(20_000)}\n`, 'f.yaml');
    } catch (e) {
      err = e as KeelError;
    }
    assert.equal(err?.code, ErrorCode.specInvalid);
    const problems = err!.details.problems as SpecProblem[];
    assert.equal(problems.length, MAX_PROBLEMS);
    assert.ok((err!.details.omitted as number) > 500 - MAX_PROBLEMS);
    assert.match(err!.message, /\(\+\d+ more\)$/);
    assert.ok(JSON.stringify(err!.details).length < 20_000, 'a refusal echoes excerpts, not the input');
  });

  it('refuses, before parsing, a text with more line breaks and commas than twice maxKeys', () => {
    // Each key or list item after the first needs one: parsing (microseconds per token) stays short.
    const lines = `${Array.from({ length: 2 * SPEC_LIMITS.maxKeys + 2 }, () => '#').join('\n')}`;
    const e = limitOf(lines);
    assert.equal(e.details.limit, 'maxKeys');
    assert.match(e.message, /counted before parsing: \d+ line breaks and commas/);
    // Under the bound, the text is parsed and its keys counted exactly.
    const under = Array.from({ length: SPEC_LIMITS.maxKeys + 1 }, (_, i) => `k${i}: 1`).join('\n');
    assert.equal(limitOf(under).details.limit, 'maxKeys');
    assert.doesNotMatch(limitOf(under).message, /before parsing/);
  });
});
