/**
 * `keel validate` and publish check a spec's arguments against its tools' argument schemas (issue
 * 14 §3): through the real CLI, a literal that cannot fit (`amount_usd: "lots"`) and a required
 * argument left out are refused with file:line and the field, and nothing is published; the
 * README's own plan-module example validates against the support desk's tools.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { exampleSpec, failJson, failText, okJson, REPO, Sandbox } from '../helpers/keel-cli.ts';

const sandbox = new Sandbox('tool-args', { supportDesk: true });
after(() => sandbox.remove());

const refund = readFileSync(exampleSpec('refund-under-50'), 'utf8');

describe('validate checks arguments against the tool', () => {
  test('a literal the tool refuses is a spec problem naming file:line and the field', () => {
    const text = refund.replace('amount_usd: "{{event.payload.refund_amount}}"', 'amount_usd: "lots"');
    const line = text.split('\n').findIndex((l) => l.includes('"lots"')) + 1;
    const file = sandbox.write('lots.yaml', text);
    const err = failText(sandbox.keel(['validate', file]), 2);
    assert.match(
      err,
      new RegExp(
        `lots\\.yaml:${line}:\\d+: steps\\[1\\]\\.args\\.amount_usd: does not fit tool issue_refund: type mismatch \\(expected number, got string "lots"\\)`,
      ),
    );
    const published = failJson(sandbox.keel(['--json', 'publish', file]), 2);
    assert.equal(published.error, 'spec_invalid');
    assert.equal(published.details?.field, 'steps[1].args.amount_usd');
    // A refused first publish leaves no store behind (the one it created is removed again).
    assert.equal(existsSync(sandbox.store()), false, 'nothing was published');
  });

  test('a required argument left out is a spec problem at the step', () => {
    const text = refund.replace(
      '      body: "Thanks for reaching out. We are processing your refund request now."\n',
      '',
    );
    const file = sandbox.write('no-body.yaml', text);
    const err = failText(sandbox.keel(['validate', file]), 2);
    assert.match(
      err,
      /no-body\.yaml:\d+:\d+: steps\[0\]\.args\.body: is missing; tool draft_reply requires it/,
    );
  });

  test("the README's plan-module example validates against the support desk's tools", () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    const block = /### Plan modules[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    assert.ok(block, 'README has a plan-module example');
    const file = sandbox.write('reply-only.plan.ts', block);
    const r = okJson<{ valid: boolean; id: string }>(
      sandbox.keel(['--json', 'validate', file], { timeoutMs: 60_000 }),
    );
    assert.deepEqual([r.valid, r.id], [true, 'reply-only']);
  });
});
