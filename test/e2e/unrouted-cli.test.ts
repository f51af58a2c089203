/**
 * The unrouted inbox through the `keel` command, as a person reads it (docs/events.md): the text of
 * `keel events ls --unrouted` — each entry's time, id, what it is, its reason and detail, a
 * repeated keep counted, a redelivered entry's runs under `--state redelivered` — and of `keel
 * events redeliver` in each of its outcomes: still unrouted (with the reason now), a run started,
 * the same run answered again, and a hook delivery mapped anew that nobody takes (kept anew).
 * Bad input is refused with its exit code.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createKeel } from '../../src/app/index.ts';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { deploy } from '../../src/testing/index.ts';
import { CliWorker, type Ran } from '../helpers/cli-in-process.ts';
import { Sandbox } from '../helpers/keel-cli.ts';

const sandbox = new Sandbox('unrouted-cli');
after(() => sandbox.remove());
const cli = new CliWorker();
after(() => cli.stop());

const SPEC = `id: refund
version: 1
status: LIVE
triggers: [{ event: refund.requested }]
steps:
  - { name: a, tool: core.identity, args: { amount: "{{event.payload.amount}}" } }
limits: { maxSteps: 1, maxCostUsd: 0 }
`;

const refund = (id: string) => ({
  id,
  type: 'refund.requested',
  subject: 'T-1',
  time: '2026-12-01T10:00:00Z',
  payload: { amount: 30 },
});

const ok = (r: Ran): string => {
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  return r.stdout;
};

const ID = 'sha256:[0-9a-f]{64}';
const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z';

describe('keel events ls --unrouted and keel events redeliver, in text', () => {
  const store = sandbox.store();
  const keel = (...args: string[]) => cli.run(['--store', store, ...args]);
  const hooks = sandbox.write(
    'keel.hooks.yaml',
    `hooks:
  - name: helpdesk
    tenant: default
    auth: { scheme: shared-secret, header: X-Token, secret: "{{secret.HELPDESK_TOKEN}}" }
    event: { type: "{{body.kind}}", id: "{{body.delivery}}", time: "2026-12-01T10:00:00Z", subject: "{{body.ticket}}" }
`,
  );

  before(async () => {
    const k = createKeel({ store });
    // A delivery of hook helpdesk whose mapping failed (its body has no `delivery`): kept as is.
    await k.events.keepFailedDelivery(
      'default',
      { hook: 'helpdesk', body: '{"kind":"ticket.closed","ticket":"T-9"}', headers: {} },
      'mapping_failed: event.id: {{body.delivery}} finds nothing in this delivery',
    );
    await k.close();
  });

  test('an empty tenant says so', async () => {
    assert.equal(
      ok(await keel('--tenant', 'empty', 'events', 'ls', '--unrouted')),
      'no unrouted events in tenant empty\n',
    );
  });

  test('each entry: time, id, what, reason and detail; a retried event is one entry; redeliver in each outcome', async () => {
    // Nothing takes refund.requested yet: emitted twice (same content) and once more, another id.
    ok(await keel('emit', sandbox.write('e1.json', refund('evt-1'))));
    ok(await keel('emit', sandbox.write('e1.json', refund('evt-1'))));
    ok(await keel('emit', sandbox.write('e2.json', refund('evt-2'))));
    const listed = ok(await keel('events', 'ls', '--unrouted')).split('\n');
    assert.deepEqual(listed.length, 7, listed.join('\n'));
    // Most recently received first.
    assert.match(
      listed[0]!,
      new RegExp(`^${TIME}  ${ID}  event evt-2 of source cli \\(refund.requested\\): no_route$`),
    );
    assert.equal(listed[1], '    no LIVE or AUTONOMOUS version of any workflow takes it');
    assert.match(
      listed[2]!,
      new RegExp(`^${TIME}  ${ID}  event evt-1 of source cli \\(refund.requested\\): no_route$`),
    );
    assert.match(listed[4]!, new RegExp(`^${TIME}  ${ID}  a delivery of hook:helpdesk: mapping_failed$`));
    assert.equal(listed[5], '    mapping_failed: event.id: {{body.delivery}} finds nothing in this delivery');
    assert.equal(listed[6], '');
    const idOf = (line: string) => new RegExp(ID).exec(line)![0];
    const evt1 = idOf(listed[2]!);
    const delivery = idOf(listed[4]!);

    // Still nothing takes it: it stays, with the reason now.
    assert.equal(
      ok(await keel('events', 'redeliver', evt1)),
      'still unrouted: no_route: no LIVE or AUTONOMOUS version of any workflow takes it\n',
    );
    // A workflow takes it now: a run starts, and the entry leaves the inbox.
    const k = createKeel({ store });
    await deploy(k, 'default', SPEC);
    await k.close();
    const started = ok(await keel('events', 'redeliver', evt1));
    const run = /^run (sha256:[0-9a-f]{64}) refund v1: completed\n$/.exec(started);
    assert.ok(run, started);
    assert.equal(
      ok(await keel('events', 'redeliver', evt1)),
      `existing run ${run[1]} refund v1: completed\n`,
    );
    const redelivered = ok(await keel('events', 'ls', '--unrouted', '--state', 'redelivered')).split('\n');
    assert.match(redelivered[0]!, new RegExp(`^${TIME}  ${evt1}  event evt-1 of source cli`));
    assert.match(redelivered[2]!, new RegExp(`^    redelivered ${TIME}: runs ${run[1]}$`));
    const waiting = ok(await keel('events', 'ls', '--unrouted'));
    assert.doesNotMatch(waiting, /evt-1/, 'a redelivered entry has left the inbox');
    assert.match(waiting, /evt-2/);

    // The hook delivery, mapped with a hooks file that cannot map it either: refused, it stays.
    const still = await keel('events', 'redeliver', delivery, '--hooks', hooks);
    assert.equal(still.code, EXIT.usage, still.stderr);
    assert.match(still.stderr, /hook helpdesk: event.id: \{\{body.delivery\}\} finds nothing/);
    // With a hooks file that maps it now (id from the ticket): nothing takes ticket.closed, so the
    // delivery leaves as an event kept anew, no_route.
    const fixed = sandbox.write('fixed.hooks.yaml', readFix(hooks));
    const anew = ok(await keel('events', 'redeliver', delivery, '--hooks', fixed));
    assert.match(anew, new RegExp(`^redelivered: kept anew as ${ID} \\(no_route\\)\\n$`));
    const after = ok(await keel('events', 'ls', '--unrouted'));
    assert.match(after, /event T-9 of source hook:helpdesk \(ticket.closed\): no_route/);
    assert.doesNotMatch(after, /a delivery of hook:helpdesk/);
  });

  test('bad input is refused with its exit code', async () => {
    const missing = await keel('events', 'redeliver', `sha256:${'0'.repeat(64)}`);
    assert.equal(missing.code, EXIT.notFound, missing.stderr);
    assert.match(missing.stderr, /no unrouted event "sha256:0+" in this tenant's inbox/);
    const state = await keel('events', 'ls', '--unrouted', '--state', 'lost');
    assert.equal(state.code, EXIT.usage);
    assert.match(state.stderr, /state: expected waiting, redelivered or all, got lost/);
    assert.equal((await keel('events', 'ls', '--unrouted', '--limit', '501')).code, EXIT.usage);
  });
});

/** The same hooks file, its event id mapped from the ticket instead. */
function readFix(hooksFile: string): string {
  return `hooks:
  - name: helpdesk
    tenant: default
    auth: { scheme: shared-secret, header: X-Token, secret: "{{secret.HELPDESK_TOKEN}}" }
    event: { type: "{{body.kind}}", id: "{{body.ticket}}", time: "2026-12-01T10:00:00Z", subject: "{{body.ticket}}" }
    description: ${JSON.stringify(`fixed from ${hooksFile.split('/').pop()}`)}
`;
}
