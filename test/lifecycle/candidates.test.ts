/**
 * The candidate-version harness (docs/lifecycle.md, "The candidate harness"): a LIVE refund desk
 * and 21 candidate versions of it, SHADOW all at once — 8 pure refactors and 13 subtle behaviour
 * changes, triggers narrowed and broadened among them — over 240 seeded events (a person approving
 * or denying the refunds that ask), through createKeel on a real SQLite file. For each candidate, the events whose behaviour differs from v1 are worked
 * out by the harness's own model (candidates.ts), which is first checked against every run Keel
 * made, live and shadow. Then, per event: the shadow report's disagreements are exactly those
 * events (no false flag, no miss), the replay gate's diverging runs exactly those v1 started, the
 * LIVE gate is met for every refactor and for no behaviour change, and `keel diff` says what it
 * can know.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Helpdesk, supportDeskTools } from '../../examples/support-desk/index.ts';
import { createKeel, type Keel } from '../../src/app/index.ts';
import type { Entry, PayloadOf } from '../../src/core/ledger/index.ts';
import { parsePolicy } from '../../src/core/policy/index.ts';
import { setStatus } from '../../src/testing/index.ts';
import {
  APPROVER,
  CANDIDATES,
  type Candidate,
  DRAWN_ID,
  type HarnessEvent,
  harnessEvents,
  type ModelDecision,
  type ModelRun,
  modelRun,
  POLICY,
  personDenies,
  refundIdOf,
  sameBehaviour,
  specValue,
  TENANT,
  V1,
  WORKFLOW,
} from './candidates.ts';

const EVENTS = harnessEvents(240);
/** Events v1 starts on, by the model (checked against the runs below). */
const V1_STARTS = EVENTS.filter((e) => modelRun(V1, e, true).starts);
const versionOf = (i: number) => i + 2;

/** The events whose behaviour under `c` differs from v1's, by the model. */
function expectedDiffering(c: Candidate): Set<string> {
  return new Set(
    EVENTS.filter((e) => !sameBehaviour(modelRun(V1, e, true), modelRun(c.spec, e, false))).map((e) => e.id),
  );
}
const EXPECTED = new Map(CANDIDATES.map((c) => [c.name, expectedDiffering(c)]));

/** A ledger read as the model's behaviour: what was proposed, what became of it, how the run ended. */
function behaviourOf(entries: readonly Entry[]): ModelRun {
  const decisions: ModelDecision[] = [];
  // A refund's id in later arguments reads as the call that made it (the model cannot know ids).
  const ids = new Map<string, string>();
  const made = new Map<string, Record<string, unknown>>();
  // A drawn id reads as "an id was drawn here": a shadow is given its live run's.
  for (const e of entries)
    if (e.kind === 'source.drawn') {
      const p = e.payload as PayloadOf<'source.drawn'>;
      if (p.source === 'id' && typeof p.value === 'string') ids.set(p.value, DRAWN_ID);
    }
  const mask = (args: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(args).map(([k, v]) => [
        k,
        typeof v === 'string' ? [...ids].reduce((t, [id, call]) => t.replaceAll(id, call), v) : v,
      ]),
    );
  let asked: { proposalId: string; args: Record<string, unknown>; denied?: boolean } | undefined;
  let status: ModelRun['status'] | undefined;
  for (const e of entries) {
    if (e.kind === 'approval.requested' || e.kind === 'approval.simulated') {
      const p = e.payload as PayloadOf<'approval.requested'>;
      asked = { proposalId: p.proposalId, args: mask(p.args) };
    } else if (e.kind === 'approval.resolved') {
      const p = e.payload as PayloadOf<'approval.resolved'>;
      if (asked?.proposalId === p.proposalId) asked.denied = p.decision === 'denied';
    } else if (e.kind === 'step.allowed') {
      const p = e.payload as PayloadOf<'step.allowed'>;
      made.set(p.proposalId, p.args);
      decisions.push({
        tool: p.tool,
        args: mask(p.args),
        outcome: 'allowed',
        approval: asked?.proposalId === p.proposalId,
      });
      asked = undefined;
    } else if (e.kind === 'step.refused') {
      const p = e.payload as PayloadOf<'step.refused'>;
      const approval = asked !== undefined && asked.proposalId === p.proposalId;
      decisions.push({
        tool: p.tool,
        args: approval ? asked!.args : null,
        outcome: 'refused',
        code: p.code,
        approval,
        ...(asked?.denied && approval ? { denied: true } : {}),
      });
    } else if (e.kind === 'step.completed') {
      const p = e.payload as PayloadOf<'step.completed'>;
      const id = (p.output as { refund_id?: unknown } | null)?.refund_id;
      if (p.tool === 'issue_refund' && typeof id === 'string')
        ids.set(id, refundIdOf(made.get(p.proposalId)!));
    } else if (e.kind === 'run.finished') {
      status = (e.payload as PayloadOf<'run.finished'>).status as ModelRun['status'];
    }
  }
  return { starts: true, decisions, status: status ?? ('running' as ModelRun['status']) };
}

const show = (e: HarnessEvent) =>
  `${e.id} ${e.type} ${e.subject ?? '(no subject)'} ${JSON.stringify(e.payload)}`;
const byId = new Map(EVENTS.map((e) => [e.id, e]));

/** Expected and found sets of event ids, compared with the differences named event by event. */
function sameEvents(found: Iterable<string>, expected: Set<string>, what: string): void {
  const got = new Set(found);
  const falseFlags = [...got].filter((id) => !expected.has(id));
  const misses = [...expected].filter((id) => !got.has(id));
  assert.ok(
    falseFlags.length === 0 && misses.length === 0,
    `${what}: ${falseFlags.length} false flags, ${misses.length} misses\n` +
      [
        ...falseFlags.map((id) => `  flagged, same behaviour: ${show(byId.get(id)!)}`),
        ...misses.map((id) => `  missed, behaviour differs: ${show(byId.get(id)!)}`),
      ]
        .slice(0, 12)
        .join('\n'),
  );
}

describe(`the candidate harness: ${CANDIDATES.length} candidates over ${EVENTS.length} events`, () => {
  let keel: Keel;
  let dir: string;
  let desk: Helpdesk;
  /** Event id to v1's live run, and back. */
  const liveRun = new Map<string, string>();
  const eventOfRun = new Map<string, string>();

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'keel-candidates-'));
    desk = new Helpdesk(':memory:');
    for (const e of EVENTS)
      for (const t of [e.subject, e.payload.ticket])
        if (t && /^T-\d+$/.test(t)) desk.openTicket(t, `${t.toLowerCase()}@example.com`);
    keel = createKeel({
      store: join(dir, 'k.db'),
      // Durability is not what this proves: commits need not wait for the disk.
      synchronous: 'NORMAL',
      tools: supportDeskTools(desk),
      policies: { [TENANT]: parsePolicy(POLICY, 'policy.yaml') },
      // Every live run is evidence, and a single disagreement blocks the move.
      promotionGates: {
        [TENANT]: {
          live: { minComparisons: V1_STARTS.length, minAgreement: 1, replayRuns: V1_STARTS.length },
        },
      },
    });
    const v1 = await keel.workflows.publishObject(TENANT, specValue(V1, 1), 'test-admin');
    await setStatus(keel, TENANT, WORKFLOW, v1.record.version, 'AUTONOMOUS');
    for (const [i, c] of CANDIDATES.entries()) {
      const { record } = await keel.workflows.publishObject(
        TENANT,
        specValue(c.spec, versionOf(i)),
        'test-admin',
      );
      assert.equal(record.version, versionOf(i), c.name);
      await setStatus(keel, TENANT, WORKFLOW, record.version, 'SHADOW');
    }
    for (const [i, e] of EVENTS.entries()) {
      // The shadow queue is worked as it would be beside a live stream whose drainer keeps up.
      if (i % 24 === 23) await keel.lifecycle.settled();
      const { runs } = await keel.events.emit(TENANT, e);
      const run = runs[0];
      if (!run) continue;
      liveRun.set(e.id, run.runId);
      eventOfRun.set(run.runId, e.id);
      if (run.status === 'waiting_approval') {
        const resolved = personDenies(e)
          ? await keel.approvals.deny(TENANT, run.runId, APPROVER, 'flagged as fraud')
          : await keel.approvals.approve(TENANT, run.runId, APPROVER);
        assert.notEqual(resolved.status, 'waiting_approval', show(e));
      }
    }
    await keel.lifecycle.settled();
  });

  after(async () => {
    await keel?.close();
    desk?.shutdown();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the world is as the bar asks: ≥ 8 candidates, refactors and behaviour changes, ≥ 200 events', () => {
    assert.ok(CANDIDATES.length >= 10 && EVENTS.length >= 200);
    // Live runs of every kind: completed, refused at the cap or by the schema, denied by the person.
    const ends = new Set(V1_STARTS.map((e) => modelRun(V1, e, true).decisions.at(-1)?.code ?? 'completed'));
    assert.deepEqual([...ends].sort(), [
      'approval_denied',
      'completed',
      'invalid_arguments',
      'spend_cap_exceeded',
    ]);
    assert.ok(V1_STARTS.length > 100 && V1_STARTS.length < EVENTS.length, `v1 starts ${V1_STARTS.length}`);
    // The model, not the label, decides what differs: every refactor differs on no event, every
    // behaviour change on some and not on all.
    for (const c of CANDIDATES) {
      const n = EXPECTED.get(c.name)!.size;
      if (c.kind === 'refactor') assert.equal(n, 0, `${c.name}: a refactor differs on ${n} events`);
      else assert.ok(n > 0 && n < EVENTS.length, `${c.name}: differs on ${n} events`);
    }
    const boundary = CANDIDATES.find((c) => c.name === 'spend cap up one cent')!;
    const amounts = [...EXPECTED.get(boundary.name)!].map((id) => byId.get(id)!.payload.refund_amount);
    assert.ok(amounts.length > 0 && amounts.every((a) => a === 50.01), `${amounts}`);
  });

  test('the model says what v1 did on every event: started or not, each call, each refusal, each person', async () => {
    for (const [i, e] of EVENTS.entries()) {
      // The shadow queue is worked as it would be beside a live stream whose drainer keeps up.
      if (i % 24 === 23) await keel.lifecycle.settled();
      const model = modelRun(V1, e, true);
      const runId = liveRun.get(e.id);
      assert.equal(runId !== undefined, model.starts, `v1 starts on ${show(e)}`);
      if (!runId) continue;
      const { entries } = await keel.engine.load(TENANT, runId);
      assert.deepEqual(behaviourOf(entries), model, show(e));
    }
  });

  test('the model says what every shadow run did, and a shadow run was made exactly where the candidate starts', async () => {
    const shadows = new Map<string, Set<string>>();
    for (let cursor: string | undefined; ; ) {
      const page = await keel.runs.list(TENANT, {
        mode: 'shadow',
        limit: 500,
        ...(cursor ? { cursor } : {}),
      });
      for (const r of page.runs) {
        const c = CANDIDATES[r.version - 2]!;
        const e = byId.get(r.eventId)!;
        const { entries } = await keel.engine.load(TENANT, r.runId);
        assert.deepEqual(behaviourOf(entries), modelRun(c.spec, e, false), `${c.name} on ${show(e)}`);
        assert.equal(r.shadowOf, liveRun.get(e.id), `${c.name} on ${show(e)}: beside v1's run, if any`);
        const seen = shadows.get(c.name) ?? new Set<string>();
        shadows.set(c.name, seen.add(e.id));
      }
      if (!page.next) break;
      cursor = page.next;
    }
    for (const c of CANDIDATES)
      sameEvents(
        shadows.get(c.name) ?? [],
        new Set(EVENTS.filter((e) => modelRun(c.spec, e, false).starts).map((e) => e.id)),
        `${c.name}: shadow runs`,
      );
  });

  for (const [i, c] of CANDIDATES.entries()) {
    describe(`v${versionOf(i)} ${c.kind === 'refactor' ? 'refactor' : 'behaviour change'}: ${c.name} (${c.what})`, () => {
      const expected = () => EXPECTED.get(c.name)!;
      const startedByV1 = () => new Set([...expected()].filter((id) => liveRun.has(id)));

      test('the shadow report flags exactly the events whose behaviour differs', async () => {
        const report = await keel.lifecycle.shadowReport(TENANT, WORKFLOW, { version: versionOf(i) });
        const compared = EVENTS.filter((e) => liveRun.has(e.id) || modelRun(c.spec, e, false).starts);
        assert.equal(report.comparisons, compared.length, 'one comparison per event either version starts');
        assert.deepEqual(report.queue, { waiting: 0, running: 0, failed: 0, failures: [] });
        const flagged: string[] = [];
        for (const d of report.disagreements) {
          if (d.liveRunId !== undefined) {
            flagged.push(eventOfRun.get(d.liveRunId)!);
            continue;
          }
          // The candidate started alone: its shadow run names the event.
          const run = await keel.runs.get(TENANT, d.shadowRunId);
          assert.equal(run.shadowOf, undefined);
          flagged.push(run.eventId);
        }
        assert.equal(flagged.length, new Set(flagged).size, 'each event flagged once');
        sameEvents(flagged, expected(), `${c.name}: shadow report`);
        assert.equal(report.agreed, compared.length - expected().size);
        const onlyCandidate = [...expected()].filter((id) => !liveRun.has(id)).length;
        assert.deepEqual(report.starts, {
          wouldNotStart: V1_STARTS.filter((e) => !modelRun(c.spec, e, false).starts).length,
          wouldStartAlone: onlyCandidate,
        });
      });

      test('the replay gate diverges on exactly the differing events v1 started', async () => {
        const replay = await keel.lifecycle.replayGate(TENANT, WORKFLOW, { version: versionOf(i) });
        assert.equal(replay.runs, V1_STARTS.length);
        sameEvents(
          replay.diverged.map((d) => eventOfRun.get(d.runId)!),
          startedByV1(),
          `${c.name}: replay gate`,
        );
        assert.equal(
          replay.wouldNotStart,
          V1_STARTS.filter((e) => !modelRun(c.spec, e, false).starts).length,
        );
      });

      test(`the LIVE gate is ${c.kind === 'refactor' ? 'met' : 'not met'}`, async () => {
        const gate = await keel.lifecycle.gate(TENANT, WORKFLOW, 'LIVE', { version: versionOf(i) });
        const unmet = gate.conditions.filter((x) => !x.met).map((x) => `${x.id}: ${x.text}`);
        assert.equal(gate.met, expected().size === 0, unmet.join('\n'));
        assert.equal(
          gate.conditions.find((x) => x.id === 'replay.gate')!.met,
          startedByV1().size === 0,
          'the replay condition',
        );
        assert.equal(
          gate.conditions.find((x) => x.id === 'shadow.agreement')!.met,
          expected().size === 0,
          'the agreement condition',
        );
      });

      test(`keel diff says ${c.diffSameBehaviour ? 'the same behaviour' : 'a behaviour change'}`, async () => {
        const diff = await keel.lifecycle.diff(TENANT, WORKFLOW, 1, versionOf(i));
        assert.equal(
          diff.sameBehaviour,
          c.diffSameBehaviour,
          diff.changes.map((x) => `${x.behaviour ? '*' : ' '} ${x.text}`).join('\n'),
        );
        // Never the same behaviour where the behaviour differs.
        if (expected().size > 0) assert.equal(diff.sameBehaviour, false);
      });
    });
  }
});
