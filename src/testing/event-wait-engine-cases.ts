/**
 * Waits for events end to end, on any store (bound by the SQLite and PostgreSQL engine tests): a
 * run reaching `wait: { event }` is `waiting` holding nothing; an emitted event of another subject
 * leaves it waiting, the matching one ends the wait at once (the delivery walks it), ledgered in
 * full, and the next step reads the outcome; an event that arrived after the run started but
 * before the wait began is taken (the look-back), one from before the window is not; two waiting
 * runs never take one event; a timeout ends the wait with `timedOut`; verify passes and replay is
 * byte-identical without the store's arrivals; tenants never reach each other's runs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createKeel, type Keel } from '../app/index.ts';
import { type Entry, payloadOf } from '../core/ledger/index.ts';
import type { Store } from '../ports/index.ts';
import { deploy } from './deploy.ts';
import { spyTool } from './spy-tools.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const kinds = (entries: readonly Entry[]) => entries.map((e) => e.kind);

/** A spec that opens a ticket, (optionally) holds at a gate step, waits for the reply, then closes. */
export function replySpec(o: { id?: string; wait?: string; before?: string; status?: string } = {}): string {
  return `id: ${o.id ?? 'desk'}
version: 1
status: ${o.status ?? 'AUTONOMOUS'}
triggers: [{ event: ticket.opened }]
steps:
  - { name: open, tool: open }
${o.before ?? ''}  - name: await_reply
    wait: ${o.wait ?? '{ event: customer.replied, match: "event.subject == run.event.subject", timeout: 48h }'}
  - name: close
    tool: close
    args: { timedOut: "{{ steps.await_reply.output.timedOut }}" }
limits: { maxSteps: 4, maxCostUsd: 0 }
`;
}

let n = 0;
const ticket = (subject: string) => ({
  id: `t-${subject}-${n++}`,
  type: 'ticket.opened',
  subject,
  time: '2026-01-01T00:00:00Z',
  payload: {},
});
const reply = (subject: string, id = `r-${subject}-${n++}`) => ({
  id,
  type: 'customer.replied',
  subject,
  time: '2026-01-01T01:00:00Z',
  payload: { text: `hello from ${subject}` },
});

export function eventWaitEngineCases(open: () => Promise<Store | string>): void {
  const tools = () => ({ open: spyTool('open'), close: spyTool('close') });
  const keelOn = async (t: ReturnType<typeof tools>): Promise<Keel> =>
    createKeel({ store: await open(), tools: [t.open, t.close] });

  test('a wait for an event: another subject leaves it waiting, the matching reply ends it at once, in full', async () => {
    const t = tools();
    const keel = await keelOn(t);
    try {
      await deploy(keel, 'acme', replySpec());
      const [run] = (await keel.events.emit('acme', ticket('T-1'))).runs;
      assert.equal(run?.status, 'waiting');
      const runId = run!.runId;
      const started = (await keel.runs.entries('acme', runId)).at(-1)!;
      assert.equal(started.kind, 'wait.started');
      const sp = payloadOf(started, 'wait.started');
      assert.equal(sp.kind, 'event');
      assert.equal(sp.event, 'customer.replied');
      assert.equal(Date.parse(sp.fireAt!) - Date.parse(started.at), 48 * 3_600_000);
      // Another tenant's reply and another subject's reply: nothing happens.
      await deploy(keel, 'other', replySpec());
      await keel.events.emit('other', reply('T-1'));
      await keel.events.emit('acme', reply('T-2'));
      assert.equal((await keel.runs.get('acme', runId)).status, 'waiting');
      assert.equal(t.close.calls.length, 0);
      const r = reply('T-1');
      await keel.events.emit('acme', r);
      assert.equal((await keel.runs.get('acme', runId)).status, 'completed');
      const entries = await keel.runs.entries('acme', runId);
      assert.deepEqual(kinds(entries).slice(3), [
        'wait.started',
        'wait.ended',
        'step.allowed',
        'step.completed',
        'run.finished',
      ]);
      const ended = payloadOf(entries[4]!, 'wait.ended');
      assert.equal(ended.reason, 'event');
      assert.deepEqual(ended.event, { ...r, tenant: 'acme', source: 'library' });
      assert.deepEqual(ended.reads, { 'event.subject': 'T-1', 'run.event.subject': 'T-1' });
      assert.equal(t.close.calls.length, 1);
      assert.deepEqual(t.close.calls[0]!.args, { timedOut: false });
      assert.equal((await keel.runs.verify('acme', runId)).ok, true);
      const replay = await keel.runs.replay('acme', runId);
      assert.equal(replay.identical, true, JSON.stringify(replay));
      assert.equal(t.close.calls.length, 1, 'replay called nothing');
    } finally {
      await keel.close();
    }
  });

  test('an event that arrived after the run started but before the wait began is taken; two waits never take one event', async () => {
    const t = tools();
    // A person approves `open` first: the run is held before its wait while the reply arrives.
    const keel = await createKeel({
      store: await open(),
      tools: [spyTool('open', { destructive: true }), t.close],
    });
    try {
      await deploy(keel, 'acme', replySpec({ id: 'held', status: 'LIVE' }));
      const a = (await keel.events.emit('acme', ticket('T-9'))).runs[0]!;
      const b = (await keel.events.emit('acme', ticket('T-9'))).runs[0]!;
      assert.equal(a.status, 'waiting_approval', JSON.stringify(a));
      assert.equal(b.status, 'waiting_approval');
      // The reply comes while both are held before their waits: kept, not lost.
      await keel.events.emit('acme', reply('T-9'));
      await keel.approvals.approve('acme', a.runId, 'dana');
      assert.equal((await keel.runs.get('acme', a.runId)).status, 'completed', 'took the earlier reply');
      await keel.approvals.approve('acme', b.runId, 'dana');
      assert.equal((await keel.runs.get('acme', b.runId)).status, 'waiting', 'the reply was taken already');
      await keel.events.emit('acme', reply('T-9'));
      assert.equal((await keel.runs.get('acme', b.runId)).status, 'completed');
      const ea = payloadOf(
        (await keel.runs.entries('acme', a.runId)).find((e) => e.kind === 'wait.ended')!,
        'wait.ended',
      );
      const eb = payloadOf(
        (await keel.runs.entries('acme', b.runId)).find((e) => e.kind === 'wait.ended')!,
        'wait.ended',
      );
      assert.notEqual(ea.event!.id, eb.event!.id, 'each took its own reply');
    } finally {
      await keel.close();
    }
  });

  test('a timeout ends the wait with timedOut; the next step reads it; replay is identical', async () => {
    const t = tools();
    const keel = await keelOn(t);
    try {
      await deploy(
        keel,
        'acme',
        replySpec({
          id: 'quick',
          wait: '{ event: customer.replied, match: "event.subject == run.event.subject", timeout: 1s }',
        }),
      );
      const [run] = (await keel.events.emit('acme', ticket('T-3'))).runs;
      assert.equal(run?.status, 'waiting');
      const worker = keel.worker({ concurrency: 2 });
      await worker.start();
      try {
        const end = Date.now() + 10_000;
        while ((await keel.runs.get('acme', run!.runId)).status !== 'completed') {
          if (Date.now() > end) throw new Error('the timeout never fired');
          await sleep(50);
        }
      } finally {
        await worker.stop();
      }
      const entries = await keel.runs.entries('acme', run!.runId);
      const ended = payloadOf(entries.find((e) => e.kind === 'wait.ended')!, 'wait.ended');
      assert.equal(ended.reason, 'timeout');
      assert.equal(ended.event, undefined);
      assert.deepEqual(t.close.calls[0]!.args, { timedOut: true });
      assert.equal((await keel.runs.verify('acme', run!.runId)).ok, true);
      assert.equal((await keel.runs.replay('acme', run!.runId)).identical, true);
    } finally {
      await keel.close();
    }
  });

  test('a look-back window: a reply from before the window is not taken', async () => {
    const t = tools();
    const keel = await createKeel({
      store: await open(),
      tools: [spyTool('open', { destructive: true }), t.close],
    });
    try {
      await deploy(
        keel,
        'acme',
        replySpec({
          id: 'narrow',
          status: 'LIVE',
          wait: '{ event: customer.replied, lookback: 1s, timeout: 1h }',
        }),
      );
      const a = (await keel.events.emit('acme', ticket('T-5'))).runs[0]!;
      await keel.events.emit('acme', reply('T-5'));
      await sleep(1500);
      await keel.approvals.approve('acme', a.runId, 'dana');
      assert.equal(
        (await keel.runs.get('acme', a.runId)).status,
        'waiting',
        'the reply is older than the window',
      );
    } finally {
      await keel.close();
    }
  });
}
