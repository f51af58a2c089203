/**
 * `keel demo lifecycle`: a workflow earning its way, in seconds, on a fresh temporary store. The
 * support desk's refund workflow (v1, a $50 cap) runs LIVE: each refund waits for the support
 * lead, who approves it (the demo does, as dana). v2 raises the cap to $60. v2 is
 * tested (simulated), shadowed on 40 live events (simulated: the helpdesk never sees it), and its
 * promotion to LIVE is refused by the gate: it disagrees with v1 on every refund between $50 and
 * $60, and the replay gate says so too. A person overrides the gate to roll it out to 10% of
 * events, automatically — and the payment provider turns out to refuse refunds over $50, which no
 * simulation could know: v2 fails where v1 did not, and the rollout rolls itself back. Every step
 * is a record in the workflow's hash-chained lifecycle, and every claim is checked.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pc from 'picocolors';
import { createKeel } from '../app/index.ts';
import { isKeelError } from '../core/errors.ts';
import { DemoChecks, EXAMPLE, loadSupportDesk } from './demo-desk.ts';
import { diffLines, gateLines, recordLines, rolloutLines, testLines } from './lifecycle-output.ts';
import { line } from './output.ts';

const TENANT = 'acme-support';
const WF = 'refund-under-50';

/** v2 of the example: the cap raised to $60, and a test that says so. */
function v2Spec(v1: string): string {
  return v1
    .replace(/^version: 1$/m, 'version: 2')
    .replace(/^ {2}maxCostUsd: 50$/m, '  maxCostUsd: 60')
    .replace(
      'expect: { status: refused, steps: [reply, refund], refusal: spend_cap_exceeded }',
      'expect: { status: refused, steps: [reply, refund], refusal: spend_cap_exceeded }\n  - name: refunds 55\n    event: { type: refund.requested, subject: T-1001, payload: { refund_amount: 55, currency: USD } }\n    expect: { status: completed, args: { refund: { amount_usd: 55 } } }',
    );
}

export async function runLifecycleDemo(o: { keep: boolean; json: boolean }): Promise<number> {
  const { Helpdesk, supportDeskTools } = await loadSupportDesk();
  const dir = mkdtempSync(join(tmpdir(), 'keel-demo-lifecycle-'));
  // The payment provider behind the helpdesk refunds at most $50 in one go.
  const desk = new Helpdesk(join(dir, 'helpdesk.db'), { refundLimitCents: 5000 });
  for (let i = 0; i < 400; i++) desk.openTicket(`T-${2000 + i}`, `customer${i}@example.com`);
  const keel = createKeel({ store: join(dir, 'keel.db'), tools: supportDeskTools(desk) });
  const say = o.json ? () => {} : line;
  const checks = new DemoChecks(say);
  const expect = (what: string, ok: boolean) => checks.expect(what, ok);
  const lead = { by: 'dana (support lead)', kind: 'human' as const };
  let n = 0;
  /** A refund request for an amount, each for a new ticket; dana approves a refund that waits. */
  const emit = async (amount: number) => {
    const i = n++;
    const r = await keel.events.emit(TENANT, {
      id: `evt-refund-${i}`,
      type: 'refund.requested',
      source: 'helpdesk',
      subject: `T-${2000 + i}`,
      time: '2026-11-30T10:00:00Z',
      payload: { refund_amount: amount, currency: 'USD' },
    });
    const run = r.runs[0];
    if (run?.status !== 'waiting_approval') return run;
    return keel.approvals.approve(TENANT, run.runId, lead.by, 'checked the order');
  };
  /** Amounts from $10 to $59.50, spread over the range. */
  const amount = (i: number) => 10 + ((i * 7.5) % 50);
  try {
    say(pc.bold('Keel demo: a v2 of the refund desk earns its way (or does not)'));
    say(pc.dim(`store ${join(dir, 'keel.db')} (tenant ${TENANT})`));
    const v1Text = readFileSync(join(EXAMPLE, `${WF}.yaml`), 'utf8');

    say();
    say(pc.bold('1. v1 (a $50 cap): tested, then LIVE; dana approves each refund'));
    await keel.workflows.publish(TENANT, v1Text, `${WF}.yaml`, 'dana');
    await keel.lifecycle.promote(TENANT, WF, 'TESTING', lead);
    expect('v1 passes its tests', (await keel.lifecycle.test(TENANT, WF)).passed);
    for (const to of ['SHADOW', 'LIVE'] as const) await keel.lifecycle.promote(TENANT, WF, to, lead);
    for (let i = 0; i < 10; i++) await emit(amount(i));
    say('  10 live refund requests handled by v1');

    say();
    say(pc.bold('2. v2 raises the cap to $60: what changes, and its tests (simulated: nothing is refunded)'));
    await keel.workflows.publish(TENANT, v2Spec(v1Text), `${WF}-v2.yaml`, 'dana');
    for (const l of diffLines(WF, await keel.lifecycle.diff(TENANT, WF, 1, 2))) say(`  ${l}`);
    await keel.lifecycle.promote(TENANT, WF, 'TESTING', lead, { version: 2 });
    const callsBefore = desk.calls();
    const tests = await keel.lifecycle.test(TENANT, WF, { version: 2 });
    for (const l of testLines(tests)) say(`  ${l}`);
    expect('v2 passes its tests', tests.passed);
    expect('testing v2 called no tool of the helpdesk', desk.calls() === callsBefore);

    say();
    say(pc.bold('3. v2 as SHADOW: 40 live events, each also run by v2 simulated'));
    await keel.lifecycle.promote(TENANT, WF, 'SHADOW', lead, { version: 2 });
    const refundsBefore = desk.refunds().length;
    let liveRefunds = 0;
    for (let i = 0; i < 40; i++) if ((await emit(amount(i)))?.status === 'completed') liveRefunds++;
    await keel.lifecycle.settled();
    expect(
      `only the live runs refunded anyone (${liveRefunds} refunds; the shadows none)`,
      desk.refunds().length - refundsBefore === liveRefunds,
    );
    const report = await keel.lifecycle.shadowReport(TENANT, WF, { version: 2 });
    const rate = Math.round(report.agreement * 1000) / 10;
    say(`  ${report.comparisons} comparisons with v1: ${rate}% agreement`);
    for (const d of report.disagreements.slice(0, 3)) say(`  - ${d.sentences[0]}`);
    if (report.disagreements.length > 3) say(`  - ... and ${report.disagreements.length - 3} more`);
    expect('every shadow run was compared with its live run', report.comparisons === 40);
    expect(
      'v2 disagrees with v1 on the refunds between $50 and $60',
      report.comparisons > report.agreed && report.agreed > 0,
    );

    say();
    say(pc.bold('4. Promoting v2 to LIVE: the gate'));
    const gate = await keel.lifecycle.gate(TENANT, WF, 'LIVE', { version: 2 });
    for (const l of gateLines(gate)) say(`  ${l}`);
    let refused = false;
    try {
      await keel.lifecycle.promote(TENANT, WF, 'LIVE', lead, { version: 2 });
    } catch (e) {
      refused = isKeelError(e) && e.code === 'promotion_gate_unmet';
    }
    expect('the promotion is refused: the shadow and the replay gate disagree', refused && !gate.met);

    say();
    say(pc.bold('5. A person overrides it: v2 rolls out to 10% of events, automatically'));
    const reason = 'finance raised the cap to $60 (FIN-31)';
    const started2 = await keel.lifecycle.rollout.start(TENANT, WF, 2, lead, {
      percent: 10,
      steps: [50, 100],
      auto: true,
      minRuns: 10,
      threshold: 0.05,
      override: reason,
    });
    expect('the override is recorded with who and why', started2.promotion.override?.reason === reason);
    let status = await keel.lifecycle.rollout.status(TENANT, WF);
    let events = 0;
    // A run of larger refunds comes in: a third of them above $50.
    while (status.rollout?.status === 'active' && events < 400) {
      await emit(30 + ((events++ * 11) % 30));
      await keel.lifecycle.settled();
      status = await keel.lifecycle.rollout.status(TENANT, WF);
    }
    for (const l of rolloutLines(WF, status.rollout)) say(`  ${l}`);
    const records = await keel.lifecycle.records(TENANT, WF);
    const rollback = records.records.findLast((r) => r.kind === 'rollback');
    const why = (rollback?.evidence as { reason?: string } | undefined)?.reason ?? '';
    say(`  after ${events} events: ${why}`);
    expect(
      'v2 failed where v1 did not, and the rollout rolled itself back',
      status.rollout?.status === 'rolled_back',
    );
    expect(
      'v2 is back to SHADOW; v1 takes every event',
      (await keel.workflows.get(TENANT, WF, 2))?.status === 'SHADOW',
    );

    say();
    say(pc.bold("6. The workflow's lifecycle, as recorded"));
    for (const l of recordLines(records.records)) say(l);
    expect('the lifecycle records verify (hash-chained)', records.chain.ok);

    return checks.finish(
      { json: o.json, ...(o.keep ? { keptIn: dir } : {}) },
      { records: records.records, ...(o.keep ? { store: join(dir, 'keel.db') } : {}) },
    );
  } finally {
    await keel.close();
    desk.shutdown();
    if (!o.keep) rmSync(dir, { recursive: true, force: true });
  }
}
