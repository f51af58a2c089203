/**
 * Waits for events survive crashes, with real processes: runs wait for a reply while the `keel
 * serve` walking them (embedded walkers) is SIGKILLed — once while every run waits and half the
 * replies arrive with no server up (kept, the runs made due), once right while the other half are
 * delivered and walked — and restarted. A redelivered reply changes nothing. Afterwards every run
 * has completed with exactly one `wait.started` and one `wait.ended` on its own subject's reply,
 * no reply was taken by two runs, the payment after the wait (a non-idempotent tool) happened
 * exactly once, counted on the tool's own side, and every ledger verifies. On SQLite (one server),
 * and on PostgreSQL with two servers sharing the schema (a wait ends on one of them only).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createKeel } from '../../src/app/index.ts';
import { payloadOf } from '../../src/core/ledger/index.ts';
import { deploy } from '../../src/testing/index.ts';
import {
  type CrashSite,
  countRuns,
  crashSites,
  effectCalls,
  paymentsMade,
  sleep,
  until,
} from './crash-site.ts';
import { crashTools } from './crash-tools.ts';

const RUNS = 30;
const SPEC = `id: replies
version: 1
status: AUTONOMOUS
triggers: [{ event: ticket.opened }]
steps:
  - { name: a, tool: note }
  - name: await_reply
    wait: { event: customer.replied, match: "event.subject == run.event.subject", timeout: 1h }
  - { name: pay, tool: pay }
  - { name: b, tool: note }
limits: { maxSteps: 6, maxCostUsd: 0 }
`;

const sites = crashSites();

const reply = (i: number) => ({
  id: `reply-${i}`,
  type: 'customer.replied',
  subject: `S-${i}`,
  time: '2026-01-01T01:00:00Z',
  payload: { text: `reply ${i}` },
});

async function crashAroundDeliveries(
  t: { diagnostic(s: string): void },
  o: CrashSite,
  servers: number,
): Promise<void> {
  // Events are emitted from here with no walking: the servers' embedded workers walk every run.
  const keel = createKeel({ store: o.keelStore, tools: crashTools(o.log), walk: 'enqueue' });
  try {
    await deploy(keel, 'acme', SPEC);
    const start = () => o.serve();
    let fleet = await Promise.all(Array.from({ length: servers }, start));
    for (let i = 0; i < RUNS; i++)
      await keel.events.emit('acme', {
        id: `ticket-${i}`,
        type: 'ticket.opened',
        subject: `S-${i}`,
        time: '2026-01-01T00:00:00Z',
        payload: {},
      });
    await until('every run waits', 60_000, async () => (await countRuns(keel, 'waiting')) === RUNS);
    // Kill 1: every run waits. Half the replies arrive while no server is up.
    for (const s of fleet) await s.kill9();
    for (let i = 0; i < RUNS / 2; i++) await keel.events.emit('acme', reply(i));
    assert.equal(await countRuns(keel, 'waiting'), RUNS, 'nothing walks them while the servers are down');
    fleet = await Promise.all(Array.from({ length: servers }, start));
    // Kill 2: while the other half are delivered and walked.
    const rest = (async () => {
      for (let i = RUNS / 2; i < RUNS; i++) await keel.events.emit('acme', reply(i));
    })();
    await sleep(300);
    await fleet[0]!.kill9();
    await rest;
    // A redelivery of a reply changes nothing.
    await keel.events.emit('acme', reply(0));
    fleet[0] = await start();
    await until('every run completed', 90_000, async () => (await countRuns(keel, 'completed')) === RUNS);
    const calls = await effectCalls(o.log);
    const takenBy = new Map<string, string>();
    for (const r of (await keel.runs.list('acme', { limit: 1000 })).runs) {
      const entries = await keel.runs.entries('acme', r.runId);
      const subject = payloadOf(entries[0]!, 'run.started').event.subject;
      assert.equal(entries.filter((e) => e.kind === 'wait.started').length, 1, `${r.runId}: one wait`);
      const ended = entries.filter((e) => e.kind === 'wait.ended').map((e) => payloadOf(e, 'wait.ended'));
      assert.equal(ended.length, 1, `${r.runId}: its wait ended once`);
      assert.equal(ended[0]!.reason, 'event');
      assert.equal(ended[0]!.event?.subject, subject, 'on its own reply');
      const id = ended[0]!.event!.id;
      assert.equal(takenBy.get(id), undefined, `reply ${id} taken by one run only`);
      takenBy.set(id, r.runId);
      assert.equal(
        paymentsMade(entries, calls),
        1,
        `run ${r.runId}: the payment after the wait happened exactly once`,
      );
      assert.ok((await keel.runs.verify('acme', r.runId)).ok, `run ${r.runId} verifies`);
    }
    assert.equal(takenBy.size, RUNS);
    t.diagnostic(
      `${RUNS} runs waited for replies on ${servers} server(s), killed twice (all waiting; mid-delivery): each ended once on its own reply`,
    );
    for (const s of fleet) assert.equal(await s.stop(), 0);
  } finally {
    await keel.close();
  }
}

test('waits for events on SQLite: keel serve SIGKILLed while runs wait and while replies are delivered; each wait ends once, on its own reply', async (t) => {
  await crashAroundDeliveries(t, sites.sqlite('event-wait-crash'), 1);
});

test('waits for events on PostgreSQL, two servers: SIGKILL while runs wait and mid-delivery; each wait ends once, on its own reply', async (t) => {
  await crashAroundDeliveries(t, await sites.postgres('evwait-crash'), 2);
});
