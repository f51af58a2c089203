/**
 * `keel demo`: the support-desk refund desk, end to end, in a fresh temporary SQLite store.
 *
 * Publishes two reviewed workflows and walks each up the lifecycle — TESTING, its tests run
 * simulated, SHADOW, LIVE — the refund desk to AUTONOMOUS on a recorded override (a person's
 * sign-off, with the reason). Then it emits four events: a $30 refund (completes),
 * a $500 refund (refused by the spend cap; the refund tool is never called), a request without an
 * amount (refused by validation), and a ticket close that waits for a person's approval, which the
 * demo then gives. It prints each run's history and verification, checks every outcome against
 * what it promised, and exits non-zero if any differs. The support desk is Keel's example
 * (examples/support-desk), loaded from its directory like a tool pack, never imported by the CLI:
 * its tools exist in this command only.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pc from 'picocolors';
import { createKeel } from '../app/index.ts';
import { DemoChecks, EXAMPLE, loadSupportDesk } from './demo-desk.ts';
import { line, printHistory, statusColor, verifyText } from './output.ts';

const TENANT = 'acme-support';

export async function runDemo(o: { keep: boolean; json: boolean }): Promise<number> {
  const { Helpdesk, supportDeskTools } = await loadSupportDesk();
  const dir = mkdtempSync(join(tmpdir(), 'keel-demo-'));
  const desk = new Helpdesk(join(dir, 'helpdesk.db'));
  const keel = createKeel({ store: join(dir, 'keel.db'), tools: supportDeskTools(desk) });
  const say = o.json ? () => {} : line;
  const checks = new DemoChecks(say);
  const expect = (what: string, ok: boolean) => checks.expect(what, ok);
  const results: Record<string, unknown>[] = [];
  try {
    say(pc.bold('Keel demo: a support desk that refunds anyone under $50'));
    say(pc.dim(`store ${join(dir, 'keel.db')} (tenant ${TENANT})`));
    say();
    const lead = { by: 'dana (support lead)', kind: 'human' as const };
    for (const [file, to] of [
      ['refund-under-50.yaml', 'AUTONOMOUS'],
      ['close-resolved-ticket.yaml', 'LIVE'],
    ] as const) {
      const { record } = await keel.workflows.publish(
        TENANT,
        readFileSync(join(EXAMPLE, file), 'utf8'),
        file,
        'demo',
      );
      const wf = record.workflowId;
      say(
        `${pc.bold('published')} ${wf} v${record.version} ${pc.dim(record.specHash.slice(0, 19))}… as DRAFT`,
      );
      await keel.lifecycle.promote(TENANT, wf, 'TESTING', lead);
      const tests = await keel.lifecycle.test(TENANT, wf);
      say(
        `  TESTING: ${tests.tests.length} tests run simulated, ${tests.tests.filter((t) => t.passed).length} passed`,
      );
      expect(
        `${wf}: its tests pass, and no tool of the helpdesk was called`,
        tests.passed && desk.calls() === 0,
      );
      for (const status of ['SHADOW', 'LIVE'] as const) {
        const { promotion } = await keel.lifecycle.promote(TENANT, wf, status, lead);
        say(`  ${promotion.from} -> ${promotion.to} by ${promotion.by}: gate met`);
      }
      if (to === 'AUTONOMOUS') {
        const reason = 'finance signed off refunds under $50 without a person (FIN-12)';
        const { promotion } = await keel.lifecycle.promote(TENANT, wf, 'AUTONOMOUS', lead, {
          override: reason,
        });
        say(`  LIVE -> AUTONOMOUS by ${promotion.by}: ${pc.yellow(`gate overridden: ${reason}`)}`);
        expect(`${wf}: the override is recorded with who and why`, promotion.override?.reason === reason);
      }
      expect(`${wf}: its lifecycle records verify`, (await keel.lifecycle.records(TENANT, wf)).chain.ok);
    }

    const emit = async (title: string, eventFile: string) => {
      say();
      say(pc.bold(title));
      const event = JSON.parse(readFileSync(join(EXAMPLE, 'events', eventFile), 'utf8'));
      const r = await keel.events.emit(TENANT, event);
      const run = r.runs[0];
      if (!run) throw new Error(`${eventFile} triggered no workflow`);
      say(`  run ${pc.dim(run.runId)}: ${statusColor(run.status)}`);
      return run;
    };
    const show = async (runId: string) => {
      const history = await keel.runs.history(TENANT, runId);
      if (!o.json) printHistory(history, '  ');
      const v = await keel.runs.verify(TENANT, runId);
      say(`  ${verifyText(runId.slice(0, 19), v)}`);
      results.push({
        runId,
        status: (await keel.runs.get(TENANT, runId)).status,
        verified: v.ok,
        history: history.map((h) => h.text),
      });
      return v.ok;
    };

    const small = await emit('1. A $30 refund request for T-1001', 'refund-30.json');
    expect('completes', small.status === 'completed');
    expect(
      'one refund of $30 issued',
      desk.refunds('T-1001').length === 1 && desk.refunds('T-1001')[0]?.amount_cents === 3000,
    );
    expect('ledger verifies', await show(small.runId));

    const large = await emit('2. A $500 refund request for T-1002', 'refund-500.json');
    expect('refused by the spend cap', large.status === 'refused' && /spend cap/.test(large.reason ?? ''));
    expect('issue_refund never called for T-1002', desk.refunds('T-1002').length === 0);
    expect('ledger verifies', await show(large.runId));

    const missing = await emit(
      '3. A refund request for T-1003 without an amount',
      'refund-missing-amount.json',
    );
    expect(
      'refused by validation (amount_usd is missing)',
      missing.status === 'refused' && /amount_usd is missing/.test(missing.reason ?? ''),
    );
    expect('issue_refund never called for T-1003', desk.refunds('T-1003').length === 0);
    expect('ledger verifies', await show(missing.runId));

    const close = await emit(
      '4. T-1004 is resolved: close_ticket is destructive and this version is LIVE',
      'ticket-resolved.json',
    );
    expect('waits for approval', close.status === 'waiting_approval');
    expect('ticket still open while waiting', desk.ticket('T-1004').status === 'open');
    const pending = await keel.approvals.list(TENANT);
    say(`  pending approvals: ${pending.map((a) => `${a.tool} ${JSON.stringify(a.args)}`).join(', ')}`);
    const approved = await keel.approvals.approve(
      TENANT,
      close.runId,
      'dana (support lead)',
      'customer confirmed',
    );
    say(`  approved by dana (support lead): run is ${statusColor(approved.status)}`);
    expect('completes after approval', approved.status === 'completed');
    expect('ticket closed', desk.ticket('T-1004').status === 'closed');
    expect('ledger verifies', await show(close.runId));

    say();
    say(pc.bold('5. The $30 request again (same event)'));
    const again = await keel.events.emit(
      TENANT,
      JSON.parse(readFileSync(join(EXAMPLE, 'events', 'refund-30.json'), 'utf8')),
    );
    expect(
      'same run, nothing executed twice',
      again.runs[0]?.runId === small.runId && again.runs[0]?.created === false,
    );
    expect('issue_refund called once in total', desk.calls('issue_refund') === 1);

    return checks.finish(
      { json: o.json, ...(o.keep ? { keptIn: dir } : {}) },
      { runs: results, ...(o.keep ? { store: join(dir, 'keel.db') } : {}) },
    );
  } finally {
    await keel.close();
    desk.shutdown();
    if (!o.keep) rmSync(dir, { recursive: true, force: true });
  }
}
