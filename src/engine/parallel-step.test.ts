/**
 * Parallel branches walked on both stores (in-memory SQLite, and a scratch PostgreSQL schema of
 * KEEL_TEST_DATABASE_URL): both branches' first calls are allowed and in flight before either
 * answers (the tools wait for each other, and would time out if walked one after another); the
 * outcomes are recorded in the order they came; `join: all` runs the step after once both are
 * done, reading both; `join: first` cuts the slower branch, whose later steps never start; a
 * spend cap only one call fits lets one branch through and refuses the other, the call already
 * allowed still recorded before the run ends; replay writes every entry again identically calling
 * nothing; verify passes, and refuses a join that does not follow from the steps before it; a
 * replay fork from inside a branch finishes as its source did.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import fc from 'fast-check';
import { bothStores } from '../../test/helpers/both-stores.ts';
import { createKeel, type Keel } from '../app/index.ts';
import type { Entry } from '../core/ledger/index.ts';
import { BranchCheck } from '../core/run/index.ts';
import { parseSpec } from '../core/spec/index.ts';
import { projectEvents } from '../openwop/project-events.ts';
import { deploy, fakeSources, type SpyTool, spyTool } from '../testing/index.ts';

const JOIN_ALL = `
id: enrich
version: 1
status: LIVE
triggers: [{event: ticket.opened}]
steps:
  - {name: start, tool: note, args: {text: start}}
  - name: enrich
    parallel:
      join: all
      branches:
        crm:
          - {name: lookup_crm, tool: crm_lookup, args: {who: "{{ event.subject }}"}}
        billing:
          - {name: lookup_billing, tool: billing_lookup, args: {who: "{{ event.subject }}"}}
          - {name: bill_total, tool: billing_total, args: {acct: "{{ steps.lookup_billing.output.acct }}"}}
  - name: reply
    tool: send_reply
    args: {text: "{{ steps.lookup_crm.output.x }} {{ steps.lookup_billing.output.y }}"}
limits: {maxSteps: 10, maxCostUsd: 0}
`;

const JOIN_FIRST = `
id: race
version: 1
status: LIVE
triggers: [{event: ticket.raced}]
steps:
  - name: fetch
    parallel:
      join: first
      branches:
        fast:
          - {name: fast_a, tool: crm_lookup, args: {who: fast}}
        slow:
          - {name: slow_a, tool: billing_lookup, args: {who: slow}}
          - {name: slow_b, tool: billing_total, args: {acct: "{{ steps.slow_a.output.acct }}"}}
  - {name: reply, tool: send_reply, args: {text: done}}
limits: {maxSteps: 10, maxCostUsd: 0}
`;

const CAPPED = `
id: capped
version: 1
status: LIVE
triggers: [{event: ticket.capped}]
steps:
  - name: pay
    parallel:
      join: all
      branches:
        one: [{name: pay_one, tool: pay, args: {amount_usd: 0.6}}]
        two: [{name: pay_two, tool: pay, args: {amount_usd: 0.6}}]
  - {name: reply, tool: send_reply, args: {text: paid}}
limits: {maxSteps: 10, maxCostUsd: 1}
`;

/**
 * Two calls that answer only once both have started: walked one after the other, the first would
 * wait for a call that never starts, and fail after `ms`. `first` answers before `second`. Each
 * pair of calls meets at a barrier of its own.
 */
function barrier(ms = 5000) {
  let arrived = 0;
  let release!: () => void;
  let both = new Promise<void>((r) => {
    release = r;
  });
  const arrive = async () => {
    const meet = both;
    arrived++;
    if (arrived === 2) {
      release();
      arrived = 0;
      both = new Promise<void>((r) => {
        release = r;
      });
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('the other branch never started: not concurrent')), ms);
    });
    try {
      await Promise.race([meet, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    first: arrive,
    second: async () => {
      await arrive();
      await new Promise((r) => setTimeout(r, 30));
    },
  };
}

function parallelTools(): Record<string, SpyTool> {
  const b = barrier();
  return {
    note: spyTool('note'),
    // crm answers second, billing first: the ledger records billing's outcome first.
    crm_lookup: spyTool('crm_lookup', {
      effect: 'read',
      handler: async () => {
        await b.second();
        return { x: 'crm-x' };
      },
    }),
    billing_lookup: spyTool('billing_lookup', {
      effect: 'read',
      handler: async () => {
        await b.first();
        return { acct: 'A-1', y: 'bill-y' };
      },
    }),
    billing_total: spyTool('billing_total', {
      effect: 'read',
      handler: (a) => ({ total: 12, acct: a.acct }),
    }),
    send_reply: spyTool('send_reply'),
    pay: spyTool('pay', {
      effect: 'external',
      idempotent: false,
      cost: { fromArg: 'amount_usd' },
      handler: async () => {
        await new Promise((r) => setTimeout(r, 20));
        return { paid: true };
      },
    }),
  };
}

const BACKENDS = bothStores('keel_test_parallel');

const step = (e: { payload: unknown }) => (e.payload as { step?: string }).step;
const trail = async (keel: Keel, runId: string) =>
  (await keel.runs.entries('t1', runId))
    .filter((e) => e.kind.startsWith('step.') || e.kind.startsWith('parallel') || e.kind === 'run.finished')
    .map((e) => (step(e) ? `${e.kind}:${step(e)}` : e.kind));

for (const backend of BACKENDS) {
  describe(`parallel branches on ${backend.name}`, () => {
    let keel: Keel;
    let tools: Record<string, SpyTool>;
    const open = async () => {
      tools = parallelTools();
      keel = createKeel({
        store: backend.store ? await backend.store() : ':memory:',
        tools: Object.values(tools),
        sources: fakeSources(),
      });
      await deploy(keel, 't1', JOIN_ALL);
      await deploy(keel, 't1', JOIN_FIRST);
      await deploy(keel, 't1', CAPPED);
    };
    after(async () => {
      await keel?.close();
      await backend.cleanup?.();
    });

    test('join all: both calls in flight before either answers, outcomes as they came, the step after reads both; replay identical, calling nothing', async () => {
      await open();
      const ev = {
        id: 'e1',
        type: 'ticket.opened',
        subject: 'dana',
        time: '2026-01-01T00:00:00Z',
        payload: {},
      };
      const [run] = (await keel.events.emit('t1', ev)).runs;
      assert.equal(run!.status, 'completed');
      assert.deepEqual(await trail(keel, run!.runId), [
        'step.allowed:start',
        'step.completed:start',
        'step.allowed:lookup_crm',
        'step.allowed:lookup_billing',
        'step.completed:lookup_billing',
        'step.completed:lookup_crm',
        'step.allowed:bill_total',
        'step.completed:bill_total',
        'parallel.joined:enrich',
        'step.allowed:reply',
        'step.completed:reply',
        'run.finished',
      ]);
      const entries = await keel.runs.entries('t1', run!.runId);
      const joined = entries.find((e) => e.kind === 'parallel.joined')!;
      assert.deepEqual(joined.payload, { step: 'enrich', join: 'all', finished: ['crm', 'billing'] });
      assert.deepEqual(tools.send_reply!.calls[0]!.args, { text: 'crm-x bill-y' });
      const before = Object.values(tools).map((t) => t.calls.length);
      assert.deepEqual(await keel.runs.replay('t1', run!.runId), {
        identical: true,
        runId: run!.runId,
        entries: entries.length,
      });
      assert.deepEqual(
        Object.values(tools).map((t) => t.calls.length),
        before,
        'replay calls nothing',
      );
      assert.equal((await keel.runs.verify('t1', run!.runId)).ok, true);
      // OpenWOP's event stream: both branches' nodes start before either completes.
      const events = projectEvents(run!.runId, entries).map((p) => `${p.event.type}:${p.event.nodeId ?? ''}`);
      const at = (x: string) => events.indexOf(x);
      assert.ok(
        at('node.started:lookup_crm') >= 0 && at('node.started:lookup_billing') >= 0,
        events.join(' '),
      );
      assert.ok(
        Math.max(at('node.started:lookup_crm'), at('node.started:lookup_billing')) <
          Math.min(at('node.completed:lookup_crm'), at('node.completed:lookup_billing')),
        events.join(' '),
      );
      const history = (await keel.runs.history('t1', run!.runId)).map((h) => h.text).join('\n');
      assert.match(
        history,
        /The branches of step enrich joined: all finished \(crm, billing, in that order\)/,
      );
    });

    test('a replay fork from inside a branch (one call answered, the other in flight) finishes as its source did', async () => {
      const ev = {
        id: 'e2',
        type: 'ticket.opened',
        subject: 'eli',
        time: '2026-01-01T00:00:00Z',
        payload: {},
      };
      const [run] = (await keel.events.emit('t1', ev)).runs;
      const entries = await keel.runs.entries('t1', run!.runId);
      const at = entries.findIndex((e) => e.kind === 'step.completed' && step(e) === 'lookup_billing');
      const calls = Object.values(tools).map((t) => t.calls.length);
      const fork = await keel.runs.fork('t1', run!.runId, { fromSeq: at + 1, mode: 'replay' });
      assert.equal(fork.status, 'completed');
      assert.deepEqual(await trail(keel, fork.runId), await trail(keel, run!.runId));
      assert.deepEqual(
        Object.values(tools).map((t) => t.calls.length),
        calls,
        'a replay fork calls nothing recorded',
      );
      assert.equal((await keel.runs.verify('t1', fork.runId)).ok, true);
      assert.equal((await keel.runs.replay('t1', fork.runId)).identical, true);
    });

    test('join first: the first branch done wins, the slower one is cut and its later step never starts', async () => {
      const ev = { id: 'e3', type: 'ticket.raced', subject: 'x', time: '2026-01-01T00:00:00Z', payload: {} };
      const [run] = (await keel.events.emit('t1', ev)).runs;
      assert.equal(run!.status, 'completed');
      assert.deepEqual(await trail(keel, run!.runId), [
        'step.allowed:fast_a',
        'step.allowed:slow_a',
        'step.completed:slow_a',
        'step.completed:fast_a',
        'parallel.joined:fetch',
        'step.allowed:reply',
        'step.completed:reply',
        'run.finished',
      ]);
      const joined = (await keel.runs.entries('t1', run!.runId)).find((e) => e.kind === 'parallel.joined')!;
      assert.deepEqual(joined.payload, {
        step: 'fetch',
        join: 'first',
        finished: ['fast'],
        cut: ['slow'],
        notRun: ['slow_b'],
      });
      assert.equal(
        tools.billing_total!.calls.length,
        2,
        'slow_b never called (only the join-all runs called it)',
      );
      assert.equal((await keel.runs.replay('t1', run!.runId)).identical, true);
      assert.equal((await keel.runs.verify('t1', run!.runId)).ok, true);
    });

    test('a spend cap only one call fits: one branch is allowed, the other refused; the allowed call is recorded before the run ends', async () => {
      const ev = { id: 'e4', type: 'ticket.capped', subject: 'x', time: '2026-01-01T00:00:00Z', payload: {} };
      const [run] = (await keel.events.emit('t1', ev)).runs;
      assert.equal(run!.status, 'refused');
      assert.deepEqual(await trail(keel, run!.runId), [
        'step.allowed:pay_one',
        'step.refused:pay_two',
        'step.completed:pay_one',
        'run.finished',
      ]);
      assert.equal(tools.pay!.calls.length, 1, 'the refused branch never called its tool');
      const refused = (await keel.runs.entries('t1', run!.runId)).find((e) => e.kind === 'step.refused')!;
      assert.match(JSON.stringify(refused.payload), /cap/);
      const end = (await keel.runs.entries('t1', run!.runId)).at(-1)!;
      assert.deepEqual((end.payload as { outputs: unknown }).outputs, { pay_one: { paid: true } });
      assert.equal((await keel.runs.replay('t1', run!.runId)).identical, true);
      assert.equal((await keel.runs.verify('t1', run!.runId)).ok, true);
    });
  });
}

describe('verify checks every join against the steps before it', () => {
  const check = (spec: string, entries: readonly Entry[]) => {
    const b = new BranchCheck();
    for (const e of entries) b.apply(e.kind, e.payload, e.seq);
    return b.result(parseSpec(spec, 'p.yaml'));
  };
  const edit = (entries: readonly Entry[], f: (p: Record<string, unknown>) => void): Entry[] =>
    entries.map((e) => {
      if (e.kind !== 'parallel.joined') return e;
      const payload = structuredClone(e.payload) as Record<string, unknown>;
      f(payload);
      return { ...e, payload } as Entry;
    });

  test('another finishing order, a cut branch declared finished, or a join: all before a branch ended is branch_mismatch', async () => {
    const tools = parallelTools();
    const keel = createKeel({ store: ':memory:', tools: Object.values(tools), sources: fakeSources() });
    await deploy(keel, 't1', JOIN_ALL);
    await deploy(keel, 't1', JOIN_FIRST);
    const ev = (id: string, type: string) => ({
      id,
      type,
      subject: 's',
      time: '2026-01-01T00:00:00Z',
      payload: {},
    });
    const [all] = (await keel.events.emit('t1', ev('v1', 'ticket.opened'))).runs;
    const [first] = (await keel.events.emit('t1', ev('v2', 'ticket.raced'))).runs;
    const allEntries = await keel.runs.entries('t1', all!.runId);
    const firstEntries = await keel.runs.entries('t1', first!.runId);
    assert.equal(check(JOIN_ALL, allEntries), undefined);
    assert.equal(check(JOIN_FIRST, firstEntries), undefined);
    const seq = allEntries.find((e) => e.kind === 'parallel.joined')!.seq;
    const swapped = check(
      JOIN_ALL,
      edit(allEntries, (p) => {
        p.finished = ['billing', 'crm'];
      }),
    );
    assert.equal(swapped?.code, 'branch_mismatch');
    assert.equal(swapped?.seq, seq);
    const won = check(
      JOIN_FIRST,
      edit(firstEntries, (p) => {
        p.finished = ['slow'];
        p.cut = ['fast'];
        delete p.notRun;
      }),
    );
    assert.equal(won?.code, 'branch_mismatch');
    assert.match(won!.message, /the run's steps before it say/);
    // A join: all written before billing's second step was done.
    const early = allEntries.filter((e) => !(e.kind === 'step.completed' && step(e) === 'bill_total'));
    assert.match(check(JOIN_ALL, early)!.message, /branch billing had not finished/);
    await keel.close();
  });
});

describe('property: the spend cap holds across branches, decided one after another', () => {
  const SPEC = `
id: spend
version: 1
status: LIVE
triggers: [{event: spend}]
steps:
  - name: pay
    parallel:
      join: all
      branches:
        a: [{name: pay_a, tool: pay, args: {amount_usd: "{{ event.payload.a }}"}}]
        b: [{name: pay_b, tool: pay, args: {amount_usd: "{{ event.payload.b }}"}}]
        c: [{name: pay_c, tool: pay, args: {amount_usd: "{{ event.payload.c }}"}}]
limits: {maxSteps: 10, maxCostUsd: 1}
`;
  test('for any three amounts, the calls allowed never cost more than the cap; the first that does not fit is refused, and nothing after it is decided', async () => {
    const pay = spyTool('pay', {
      effect: 'external',
      idempotent: false,
      cost: { fromArg: 'amount_usd' },
      handler: async () => {
        await new Promise((r) => setTimeout(r, 1));
        return { paid: true };
      },
    });
    const keel = createKeel({ store: ':memory:', tools: [pay], sources: fakeSources() });
    await deploy(keel, 't1', SPEC);
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(
          fc.integer({ min: 0, max: 80 }),
          fc.integer({ min: 0, max: 80 }),
          fc.integer({ min: 0, max: 80 }),
        ),
        async (cents) => {
          const [a, b, c] = cents.map((x) => x / 100);
          const ev = {
            id: `p${n++}`,
            type: 'spend',
            subject: 's',
            time: '2026-01-01T00:00:00Z',
            payload: { a, b, c },
          };
          const [run] = (await keel.events.emit('t1', ev)).runs;
          const entries = await keel.runs.entries('t1', run!.runId);
          const allowed = entries.filter((e) => e.kind === 'step.allowed').map((e) => step(e));
          const refused = entries.filter((e) => e.kind === 'step.refused').map((e) => step(e));
          // What deciding one after another against the cap must give.
          let spent = 0;
          const want: string[] = [];
          let stop: string | undefined;
          for (const [name, x] of [
            ['pay_a', cents[0]],
            ['pay_b', cents[1]],
            ['pay_c', cents[2]],
          ] as const) {
            if (spent + x > 100) {
              stop = name;
              break;
            }
            spent += x;
            want.push(name);
          }
          assert.deepEqual(allowed, want);
          assert.deepEqual(refused, stop ? [stop] : []);
          assert.equal(run!.status, stop ? 'refused' : 'completed');
          const spentCents = entries
            .filter((e) => e.kind === 'step.completed')
            .reduce((t, e) => t + (e.payload as { costCents: number }).costCents, 0);
          assert.ok(spentCents <= 100, `spent ${spentCents} cents under a 100-cent cap`);
          assert.equal(
            entries.at(-1)!.kind,
            'run.finished',
            'the run ends after every call it allowed is recorded',
          );
        },
      ),
      { numRuns: 30 },
    );
    await keel.close();
  });
});
