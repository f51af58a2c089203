/**
 * Virtual time in `keel test`: a spec test runs a 48-hour wait in milliseconds. A test declaring
 * `clock:` stamps its run from that instant, the wait jumps the run's clock to its fire time, and
 * the steps after it run at that virtual time; the run replays byte for byte. A test without a
 * clock never sleeps either: its clock jumps past the wait.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { payloadOf } from '../../core/ledger/index.ts';
import { deploy, spyTool } from '../../testing/index.ts';
import { createKeel } from '../keel.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-virtual-time-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const SPEC = `id: access
version: 1
status: TESTING
triggers: [{ event: access.requested }]
steps:
  - { name: grant, tool: grant, args: { at: "{{ clock.now }}" } }
  - name: cool_off
    wait: { for: 48h }
  - { name: revoke, tool: revoke, args: { at: "{{ clock.now }}" } }
limits: { maxSteps: 4, maxCostUsd: 0 }
tests:
  - name: revokes after two days
    clock: "2026-01-01T09:00:00Z"
    event: { type: access.requested, subject: dana }
    expect: { status: completed, steps: [grant, revoke] }
  - name: no clock declared
    event: { type: access.requested, subject: eli }
    expect: { status: completed, steps: [grant, revoke] }
`;

test('keel test runs a 48-hour wait in milliseconds, in virtual time, and the run replays', async () => {
  const read = { effect: 'read' as const, simulate: undefined };
  const grant = spyTool('grant', { ...read, handler: async (a) => ({ grantedAt: a.at }) });
  const revoke = spyTool('revoke', { ...read, handler: async (a) => ({ revokedAt: a.at }) });
  const keel = createKeel({ store: join(dir, 'v.db'), tools: [grant, revoke] });
  try {
    await deploy(keel, 'acme', SPEC);
    const t0 = Date.now();
    const report = await keel.lifecycle.test('acme', 'access');
    const ms = Date.now() - t0;
    assert.equal(report.passed, true, JSON.stringify(report, null, 2));
    assert.ok(ms < 5000, `took ${ms} ms`);
    const [declared, free] = report.tests;
    const entries = await keel.runs.entries('acme', declared!.runId!);
    assert.equal(entries[0]!.at, '2026-01-01T09:00:00Z', 'the run starts at the declared clock');
    const started = entries.find((e) => e.kind === 'wait.started')!;
    assert.equal(payloadOf(started, 'wait.started').fireAt, '2026-01-03T09:00:00.000Z');
    const ended = entries.find((e) => e.kind === 'wait.ended')!;
    assert.equal(ended.at, '2026-01-03T09:00:00.000Z', 'the clock jumped to the fire time');
    assert.equal(grant.calls[0]!.args.at, '2026-01-01T09:00:00.000Z', 'clock.now reads the virtual clock');
    assert.equal(revoke.calls[0]!.args.at, '2026-01-03T09:00:00.000Z', 'after the wait, two days later');
    assert.equal((await keel.runs.replay('acme', declared!.runId!)).identical, true);
    // No clock declared: the real clock, until the wait moves the run's clock two days on.
    const other = await keel.runs.entries('acme', free!.runId!);
    const fire = Date.parse(payloadOf(other.find((e) => e.kind === 'wait.started')!, 'wait.started').fireAt!);
    assert.ok(fire - Date.now() > 47 * 3_600_000, 'the fire time is two days ahead');
    assert.equal(Date.parse(other.find((e) => e.kind === 'wait.ended')!.at), fire);
    assert.ok(Date.parse(other.at(-1)!.at) >= fire, 'nothing after the wait is earlier than its end');
    assert.equal((await keel.runs.replay('acme', free!.runId!)).identical, true);
    // The gate finds the run of a test that declares a clock (its run id carries the clock).
    const gate = await keel.lifecycle.gate('acme', 'access', 'SHADOW');
    const tests = gate.conditions.find((c) => c.id === 'tests.pass')!;
    assert.equal(tests.met, true, JSON.stringify(tests));
  } finally {
    await keel.close();
  }
});
