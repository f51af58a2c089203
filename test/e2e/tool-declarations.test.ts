/**
 * A tool declaration can never weaken a check, through the real `keel` command: a tool pack's
 * `cost: 5` is enforced like `{fixedUsd: 5}`, a cost form Keel does not know is refused naming
 * the module, the tool and the field (the same in a tools file), a destructive read is refused
 * before anything runs, and a cent amount ($19.99) passes `multipleOf: 0.01` and costs exactly
 * 1999 cents.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { failJson, okJson, runKeel, Sandbox } from '../helpers/keel-cli.ts';

const sandbox = new Sandbox('tool-declarations');
after(() => sandbox.remove());
const cwd = sandbox.dir;

/** A pack with one `pay` tool declared with `cost` (source text), which leaves `marker` behind. */
function payPack(file: string, cost: string, marker: string, extra = ''): string {
  return sandbox.write(
    file,
    `import { writeFileSync } from 'node:fs';
export default [{
  name: 'pay',
  description: 'Pays a supplier.',
  args: { type: 'object', required: ['amount_usd'], properties: { amount_usd: { type: 'number', exclusiveMinimum: 0, multipleOf: 0.01 } } },
  destructive: false, effect: 'external', idempotent: true, scopes: [], cost: ${cost},${extra}
  handler: (args) => { writeFileSync(${JSON.stringify(join(cwd, marker))}, String(args.amount_usd)); return { ok: true }; },
}];
`,
  );
}

const spec = (cap: string) => `id: pay-once
version: 1
status: DRAFT
triggers: [{ event: pay.requested }]
steps:
  - { name: pay, tool: pay, args: { amount_usd: "{{event.payload.amount_usd}}" } }
limits: { maxSteps: 1, maxCostUsd: ${cap} }
`;

function event(name: string, amount: number): string {
  return sandbox.write(`${name}.json`, {
    id: `evt-${name}`,
    type: 'pay.requested',
    source: 'erp',
    subject: name,
    time: '2026-11-30T09:00:00Z',
    payload: { amount_usd: amount },
  });
}

describe('tool declarations through the CLI', () => {
  test('cost: 5 in a tool pack is a fixed cost of $5: a spend cap of $0 refuses the call', () => {
    const pack = payPack('shorthand/tools.mjs', '5', 'shorthand.ran');
    const keel = (...args: string[]) =>
      runKeel(['--store', 'shorthand/keel.db', '--tools', pack, '--json', ...args], { cwd });
    okJson(keel('publish', sandbox.write('shorthand/pay.yaml', spec('0'))));
    const run = okJson<{ status: string; reason?: string }>(keel('run', 'pay-once', event('five', 1)));
    assert.equal(run.status, 'refused');
    assert.match(run.reason ?? '', /cost 5 exceeds the spend cap of 0/);
    assert.equal(existsSync(join(cwd, 'shorthand.ran')), false, 'the tool was never called');
  });

  test('an unknown cost form is refused at load, naming the module, the tool and the field; a tools file alike', () => {
    const pack = payPack('fixed/tools.mjs', '{ fixed: 5 }', 'fixed.ran');
    const e = failJson(
      runKeel(['--store', 'fixed/keel.db', '--tools', pack, '--json', 'runs', 'ls'], { cwd }),
      2,
    );
    assert.equal(e.error, 'usage');
    assert.match(
      e.message,
      /^--tools: .*fixed\/tools\.mjs: tool "pay": cost\.fixed: unknown field; did you mean "fixedUsd"\?/,
    );
    assert.equal(existsSync(join(cwd, 'fixed', 'keel.db')), false, 'nothing was created');

    const file = sandbox.write(
      'fixed/tools.yaml',
      `tools:
  - name: pay
    method: POST
    url: http://127.0.0.1:9/pay
    effect: external
    cost: { fixed: 5 }
`,
    );
    const f = failJson(
      runKeel(['--store', 'fixed/keel.db', '--tools', file, '--json', 'runs', 'ls'], { cwd }),
      2,
    );
    assert.match(f.message, /tools\.yaml: tool pay: cost\.fixed: unknown field; did you mean "fixedUsd"\?/);
  });

  test('a tool declared effect read and destructive is refused before anything runs', () => {
    const pack = sandbox.write(
      'wipe/tools.mjs',
      `export default [{
  name: 'wipe_customer', description: 'Deletes a customer.', args: { type: 'object' },
  effect: 'read', destructive: true, idempotent: true, scopes: [], handler: () => ({ wiped: true }),
}];
`,
    );
    const e = failJson(
      runKeel(['--store', 'wipe/keel.db', '--tools', pack, '--json', 'runs', 'ls'], { cwd }),
      2,
    );
    assert.match(
      e.message,
      /tool "wipe_customer": destructive: a read tool changes nothing, so it cannot be destructive/,
    );
  });

  test('$19.99 passes multipleOf: 0.01 and costs exactly 1999 cents of a $20 cap', () => {
    const pack = payPack('cents/tools.mjs', "{ fromArg: 'amount_usd' }", 'cents.ran');
    const keel = (...args: string[]) =>
      runKeel(['--store', 'cents/keel.db', '--tools', pack, '--json', ...args], { cwd });
    okJson(keel('publish', sandbox.write('cents/pay.yaml', spec('20'))));
    const run = okJson<{ status: string; runId: string }>(keel('run', 'pay-once', event('cents', 19.99)));
    assert.equal(run.status, 'completed');
    assert.equal(readFileSync(join(cwd, 'cents.ran'), 'utf8'), '19.99');
    const history = JSON.stringify(okJson(keel('history', run.runId)));
    assert.match(history, /cost \$19\.99/);
    const over = okJson<{ status: string; reason?: string }>(keel('run', 'pay-once', event('over', 20.01)));
    assert.equal(over.status, 'refused');
    assert.match(over.reason ?? '', /amount_usd 20\.01 exceeds the spend cap of 20/);
  });
});
