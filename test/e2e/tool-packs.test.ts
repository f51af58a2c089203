/**
 * Tools come from tool packs only: the CLI builds in no example. A command opens no helpdesk, a
 * user's own `issue_refund` is not "registered twice", the support-desk workflows need its pack,
 * the working directory's keel.tools.* is loaded unless --tools or KEEL_TOOLS names another, and
 * `keel init` writes that file. src/cli imports nothing from examples/.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  exampleEvent,
  exampleSpec,
  failJson,
  okJson,
  REPO,
  runKeel,
  Sandbox,
  SUPPORT_DESK_PACK,
} from '../helpers/keel-cli.ts';

const sandbox = new Sandbox('tool-packs');
after(() => sandbox.remove());
const cwd = sandbox.dir;

/** A JavaScript pack whose `issue_refund` leaves `<marker>` behind when it runs. */
function refundPack(file: string, marker: string): string {
  return sandbox.write(
    file,
    `import { writeFileSync } from 'node:fs';
export default [{
  name: 'issue_refund',
  description: 'Our own refund tool.',
  args: { type: 'object', required: ['ticket_id', 'amount_usd'], properties: { ticket_id: { type: 'string' }, amount_usd: { type: 'number' } } },
  destructive: false, effect: 'write', idempotent: true, scopes: ['payments.refund'],
  handler: (args) => { writeFileSync(${JSON.stringify(join(cwd, marker))}, String(args.amount_usd)); return { ok: true }; },
}];
`,
  );
}

const REFUND_ONLY = `id: refund-only
version: 1
status: DRAFT
triggers: [{ event: refund.requested }]
steps:
  - { name: refund, tool: issue_refund, args: { ticket_id: "{{event.subject}}", amount_usd: "{{event.payload.refund_amount}}" } }
limits: { maxSteps: 1, maxCostUsd: 0 }
`;

describe('tools come from tool packs only', () => {
  test('src/cli imports nothing from examples/', () => {
    const cli = join(REPO, 'src', 'cli');
    const offenders = readdirSync(cli)
      .filter((f) => f.endsWith('.ts'))
      .filter((f) =>
        /from\s+['"][^'"]*examples\/|import\(\s*['"][^'"]*examples\//.test(
          readFileSync(join(cli, f), 'utf8'),
        ),
      );
    assert.deepEqual(offenders, []);
  });

  test('a command on a fresh store opens no helpdesk and creates nothing but the store', () => {
    // migrate creates the store (runs ls would refuse a missing one: store_not_found).
    okJson(runKeel(['--store', 'data/keel.db', 'migrate', '--json'], { cwd }));
    okJson(runKeel(['--store', 'data/keel.db', 'runs', 'ls', '--json'], { cwd }));
    assert.deepEqual(
      readdirSync(join(cwd, 'data')).filter((f) => !f.startsWith('keel.db')),
      [],
    );
    assert.equal(existsSync(join(cwd, '.keel')), false);
  });

  test("without the support desk's pack its workflows name unknown tools", () => {
    const e = failJson(
      runKeel(['--store', 'data/keel.db', 'validate', exampleSpec('refund-under-50'), '--json'], { cwd }),
      2,
    );
    assert.match(e.message, /unknown tool "draft_reply"/);
  });

  test('a user tool named issue_refund loads and runs (it is no longer "registered twice")', () => {
    const pack = refundPack('own/tools.mjs', 'own.ran');
    const spec = sandbox.write('own/refund-only.yaml', REFUND_ONLY);
    const keel = (...args: string[]) =>
      runKeel(['--store', 'own/keel.db', '--tools', pack, '--json', ...args], { cwd });
    okJson(keel('publish', spec, '--as', 'alice'));
    const run = okJson<{ status: string }>(
      keel('run', 'refund-only', exampleEvent('refund-30'), '--live', '--yes'),
    );
    assert.equal(run.status, 'completed');
    assert.equal(readFileSync(join(cwd, 'own.ran'), 'utf8'), '30');
  });

  test("the working directory's keel.tools.mjs is the default; --tools and KEEL_TOOLS name another", () => {
    const project = join(cwd, 'project');
    refundPack('project/keel.tools.mjs', 'default.ran');
    const spec = sandbox.write('project/refund-only.yaml', REFUND_ONLY);
    const keel = (args: string[], env: Record<string, string> = {}) =>
      runKeel(['--store', 'keel.db', '--json', ...args], { cwd: project, env });
    okJson(keel(['publish', spec, '--as', 'alice']));
    assert.equal(
      okJson<{ status: string }>(keel(['run', 'refund-only', exampleEvent('refund-30'), '--live', '--yes']))
        .status,
      'completed',
    );
    assert.equal(readFileSync(join(cwd, 'default.ran'), 'utf8'), '30');
    // Naming the support desk's pack replaces the default: its workflows validate, refund-only's tool is its own.
    for (const named of [
      keel(['--tools', SUPPORT_DESK_PACK, 'validate', exampleSpec('refund-under-50')]),
      keel(['validate', exampleSpec('refund-under-50')], { KEEL_TOOLS: SUPPORT_DESK_PACK }),
    ])
      okJson(named);
    const without = failJson(keel(['validate', exampleSpec('refund-under-50')]), 2);
    assert.match(without.message, /unknown tool "draft_reply"/);
  });

  test('a default pack that cannot load is a usage error naming it', () => {
    const project = join(cwd, 'broken');
    sandbox.write('broken/keel.tools.mjs', 'export default 42;\n');
    const e = failJson(runKeel(['--json', 'runs', 'ls'], { cwd: project }), 2);
    assert.equal(e.error, 'usage');
    assert.match(
      e.message,
      /^project tool pack: keel\.tools\.mjs must export .* an array of tool definitions/,
    );
  });

  test('keel init writes the example workflows, events and keel.tools.mjs, and never overwrites', () => {
    const project = join(cwd, 'fresh');
    const first = okJson<{ written: string[] }>(runKeel(['--json', 'init', project], { cwd }));
    assert.deepEqual(first.written.map((f) => f.replace(/^fresh\//, '')).sort(), [
      'events/refund-30.json',
      'events/refund-500.json',
      'events/refund-missing-amount.json',
      'events/ticket-resolved.json',
      'keel.tools.mjs',
      'workflows/acknowledge-ticket.plan.ts',
      'workflows/close-resolved-ticket.yaml',
      'workflows/refund-under-50.yaml',
    ]);
    assert.match(
      readFileSync(join(project, 'keel.tools.mjs'), 'utf8'),
      /^export \{ default \} from 'keel\/support-desk';$/m,
    );
    assert.deepEqual(
      okJson<{ written: string[] }>(runKeel(['--json', 'init', project], { cwd })).written,
      [],
    );
  });
});
