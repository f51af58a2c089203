/**
 * Effects under crashes, in process: a walk is abandoned inside a tool call (its handler never
 * returns, as if the process died there), and a second Keel on the same store recovers the run.
 * A non-idempotent call is never repeated on Keel's own initiative: the run is suspended as
 * outcome_unknown until the tool's reconcile check or a person settles it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createKeel, type Keel } from '../app/index.ts';
import { isKeelError } from '../core/errors.ts';
import { type Entry, type OutcomeUnknownSuspension, payloadOf } from '../core/ledger/index.ts';
import { outcomeUnknown, type ToolDefinition } from '../ports/index.ts';
import { deploy, spyTool } from '../testing/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'keel-suspension-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const SPEC = `
id: pay
version: 1
status: AUTONOMOUS
triggers: [{ event: go }]
steps:
  - { name: charge, tool: charge, args: { amount: 5 } }
  - { name: receipt, tool: receipt, args: { charge_id: "{{steps.charge.output.id}}" } }
limits: { maxSteps: 2, maxCostUsd: 0 }
`;

const kinds = (entries: Entry[]) => entries.map((e) => e.kind);
const isCode = (code: string) => (e: unknown) => isKeelError(e) && e.code === code;

/** The tools of one process: `charge` hangs forever on its first call when `hang` is set. */
function tools(o: { hang?: boolean; reconcile?: ToolDefinition['reconcile'] } = {}) {
  let calls = 0;
  const charge = spyTool('charge', {
    effect: 'external',
    idempotent: false,
    handler: () => {
      calls++;
      return o.hang && calls === 1 ? new Promise(() => {}) : { id: `ch_${calls}` };
    },
  });
  const receipt = spyTool('receipt', { handler: (a) => ({ sent: a.charge_id }) });
  const all: ToolDefinition[] = [o.reconcile ? { ...charge, reconcile: o.reconcile } : charge, receipt];
  return { charge, receipt, all };
}

/** Starts a run whose process "dies" inside the first charge call; returns the store and run id. */
async function crashedRun(): Promise<{ path: string; runId: string }> {
  const path = join(dir, `s${n++}.db`);
  const first = tools({ hang: true });
  const keel = createKeel({ store: path, tools: first.all });
  await deploy(keel, 'acme', SPEC);
  void keel.events.emit('acme', { id: `e${n}`, type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });
  while (first.charge.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
  const [run] = (await keel.runs.list('acme')).runs;
  return { path, runId: run!.runId };
}

async function recover(
  path: string,
  o: Parameters<typeof tools>[0] = {},
): Promise<Keel & ReturnType<typeof tools>> {
  const t = tools(o);
  return Object.assign(createKeel({ store: path, tools: t.all }), t);
}

describe('a non-idempotent call whose outcome is unknown', () => {
  test('suspends the run as outcome_unknown, persisted and listed, and is never called again', async () => {
    const { path, runId } = await crashedRun();
    const keel = await recover(path);
    assert.equal((await keel.runs.recover('acme', runId)).status, 'outcome_unknown');
    const entries = await keel.runs.entries('acme', runId);
    assert.deepEqual(kinds(entries), ['run.started', 'step.allowed', 'run.suspended']);
    const s = payloadOf(entries[2]!, 'run.suspended') as OutcomeUnknownSuspension;
    const a = payloadOf(entries[1]!, 'step.allowed');
    assert.deepEqual(
      [s.reason, s.step, s.tool, s.proposalId, s.idempotencyKey],
      ['outcome_unknown', 'charge', 'charge', a.proposalId, a.idempotencyKey],
    );
    assert.equal((await keel.runs.get('acme', runId)).status, 'outcome_unknown');
    assert.deepEqual(
      (await keel.runs.list('acme', { status: 'outcome_unknown' })).runs.map((r) => r.runId),
      [runId],
    );
    assert.equal((await keel.runs.recover('acme', runId)).status, 'outcome_unknown');
    assert.equal((await keel.runs.entries('acme', runId)).length, 3, 'resuming again writes nothing');
    assert.equal(keel.charge.calls.length, 0);
    assert.equal((await keel.runs.verify('acme', runId)).ok, true);
    assert.equal((await keel.runs.replay('acme', runId)).identical, true);
  });

  test('a person reconciles it as happened: the given output completes the step, and the run goes on', async () => {
    const { path, runId } = await crashedRun();
    const keel = await recover(path);
    await keel.runs.recover('acme', runId);
    const done = await keel.runs.reconcile('acme', runId, {
      happened: true,
      output: { id: 'ch_seen_in_console' },
      by: 'dana',
      note: 'found in the payment console',
    });
    assert.equal(done.status, 'completed');
    assert.equal(keel.charge.calls.length, 0, 'the charge is never repeated');
    assert.deepEqual(keel.receipt.calls[0]!.args, { charge_id: 'ch_seen_in_console' });
    const entries = await keel.runs.entries('acme', runId);
    const r = payloadOf(entries.find((e) => e.kind === 'step.reconciled')!, 'step.reconciled');
    assert.deepEqual(
      [r.happened, r.via, r.by, r.output, r.note],
      [true, 'operator', 'dana', { id: 'ch_seen_in_console' }, 'found in the payment console'],
    );
    assert.equal((await keel.runs.verify('acme', runId)).ok, true);
    assert.deepEqual(await keel.runs.replay('acme', runId), { identical: true, runId, entries: 7 });
    await assert.rejects(
      keel.runs.reconcile('acme', runId, { happened: true, by: 'eve' }),
      isCode('already_resolved'),
    );
  });

  test('a person reconciles it as not happened: the step runs again as attempt 2, with a new key', async () => {
    const { path, runId } = await crashedRun();
    const keel = await recover(path);
    await keel.runs.recover('acme', runId);
    await assert.rejects(
      keel.runs.reconcile('acme', runId, { happened: false, output: 1, by: 'dana' }),
      isCode('usage'),
    );
    const done = await keel.runs.reconcile('acme', runId, { happened: false, by: 'dana' });
    assert.equal(done.status, 'completed', 'maxSteps 2 still suffices: the void allow does not count');
    assert.equal(keel.charge.calls.length, 1);
    const allows = (await keel.runs.entries('acme', runId))
      .filter((e) => e.kind === 'step.allowed')
      .map((e) => payloadOf(e, 'step.allowed'));
    assert.deepEqual(
      allows.map((a) => [a.step, a.attempt]),
      [
        ['charge', 1],
        ['charge', 2],
        ['receipt', 1],
      ],
    );
    assert.notEqual(allows[0]!.idempotencyKey, allows[1]!.idempotencyKey);
    assert.equal(keel.charge.calls[0]!.ctx.idempotencyKey, allows[1]!.idempotencyKey);
    assert.equal((await keel.runs.verify('acme', runId)).ok, true);
    assert.equal((await keel.runs.replay('acme', runId)).identical, true);
  });

  test('a tool’s reconcile check settles it without a suspension; a failing check suspends', async () => {
    const { path, runId } = await crashedRun();
    const seen: string[] = [];
    const keel = await recover(path, {
      reconcile: (_args, ctx) => {
        seen.push(ctx.idempotencyKey);
        return { happened: true, output: { id: 'ch_1' } };
      },
    });
    assert.equal((await keel.runs.recover('acme', runId)).status, 'completed');
    const entries = await keel.runs.entries('acme', runId);
    assert.deepEqual(kinds(entries).slice(1, 3), ['step.allowed', 'step.reconciled']);
    assert.deepEqual(seen, [payloadOf(entries[1]!, 'step.allowed').idempotencyKey]);
    const r = payloadOf(entries[2]!, 'step.reconciled');
    assert.deepEqual([r.via, r.by, r.happened], ['tool', 'charge', true]);
    assert.equal(keel.charge.calls.length, 0);
    assert.equal((await keel.runs.replay('acme', runId)).identical, true);

    const other = await crashedRun();
    const failing = await recover(other.path, {
      reconcile: () => {
        throw new Error('payments API down');
      },
    });
    assert.equal((await failing.runs.recover('acme', other.runId)).status, 'outcome_unknown');
    const suspended = (await failing.runs.entries('acme', other.runId)).at(-1)!;
    assert.match(
      payloadOf(suspended, 'run.suspended').message,
      /reconcile check of charge failed: payments API down/,
    );
    assert.equal(failing.charge.calls.length, 0);
  });

  test('a reconcile check that never finds the call sends the step back at most twice, then a person decides', async () => {
    const path = join(dir, `s${n++}.db`);
    let checks = 0;
    const lost = spyTool('charge', {
      effect: 'external',
      idempotent: false,
      handler: () => {
        throw outcomeUnknown('the connection dropped after the request was sent');
      },
    });
    const receipt = spyTool('receipt', { handler: (a) => ({ sent: a.charge_id }) });
    const keel = createKeel({
      store: path,
      tools: [
        {
          ...lost,
          reconcile: async () => {
            checks++;
            return { happened: false };
          },
        },
        receipt,
      ],
    });
    await deploy(keel, 'acme', SPEC);
    const [run] = (
      await keel.events.emit('acme', { id: 'lost', type: 'go', time: '2026-01-01T00:00:00Z', payload: {} })
    ).runs;
    assert.equal(run!.status, 'outcome_unknown');
    assert.equal(lost.calls.length, 3, 'three attempts, never a fourth');
    assert.equal(checks, 3);
    const entries = await keel.runs.entries('acme', run!.runId);
    assert.equal(entries.filter((e) => e.kind === 'step.reconciled').length, 2);
    const s = payloadOf(entries.at(-1)!, 'run.suspended');
    assert.match(s.message, /found no call for attempt 3 either; after 3 attempts a person decides/);
    assert.equal((await keel.runs.verify('acme', run!.runId)).ok, true);
    const replay = await keel.runs.replay('acme', run!.runId);
    assert.equal(replay.identical, true, JSON.stringify(replay));
    assert.equal(lost.calls.length, 3, 'replay calls nothing');
    await keel.close();
  });

  test('only a suspended run can be reconciled', async () => {
    const keel = await recover(join(dir, `s${n++}.db`));
    await deploy(keel, 'acme', SPEC);
    const { runs } = await keel.events.emit('acme', {
      id: 'ok',
      type: 'go',
      time: '2026-01-01T00:00:00Z',
      payload: {},
    });
    assert.equal(runs[0]!.status, 'completed');
    await assert.rejects(
      keel.runs.reconcile('acme', runs[0]!.runId, { happened: true, by: 'dana' }),
      isCode('run_state'),
    );
    await assert.rejects(
      keel.runs.reconcile('other-tenant', runs[0]!.runId, { happened: true, by: 'dana' }),
      isCode('not_found'),
    );
  });
});
