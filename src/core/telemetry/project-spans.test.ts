import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { type Digest, hashOf } from '../canonical/index.ts';
import {
  chainEntry,
  decodeEntry,
  type Entry,
  type EntryKind,
  type Head,
  type PayloadOf,
  type StoredEntry,
} from '../ledger/index.ts';
import { otlpTraceJson } from './otlp-json.ts';
import { projectSpans } from './project-spans.ts';
import { runTraceOf } from './run-span.ts';
import { entrySpanId, formatTraceParent, parseTraceParent, runTraceId } from './trace-context.ts';

const RUN = hashOf('run-1');
const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();

function root(over: Partial<PayloadOf<'run.started'>> = {}): PayloadOf<'run.started'> {
  return {
    tenant: 'acme',
    workflowId: 'refund',
    version: 1,
    specHash: hashOf('spec'),
    status: 'LIVE',
    event: {
      id: 'e1',
      type: 'refund.requested',
      tenant: 'acme',
      source: 's',
      subject: 'x',
      payload: { card: 'PAYLOAD-VALUE' },
      time: at(0),
    },
    engine: 'keel/1',
    ...over,
  };
}

/** Chains payloads into a ledger and decodes it from its stored bytes, as a reader would. */
function ledger(
  runId: string,
  items: readonly [EntryKind, unknown][],
): { stored: StoredEntry[]; entries: Entry[] } {
  let head: Head | null = null;
  const stored: StoredEntry[] = [];
  items.forEach(([kind, payload], i) => {
    const { stored: s } = chainEntry(runId, head, kind, payload as never, at(i));
    head = { seq: s.seq, hash: s.hash };
    stored.push(s);
  });
  return { stored, entries: stored.map(decodeEntry) };
}

const P1 = hashOf('p1');
const allowed = (step: string, p: Digest, attempt = 1, extra = {}) => ({
  step,
  tool: 'refund.issue',
  proposalId: p,
  args: { card: 'SECRET-ARG' },
  idempotencyKey: p,
  attempt,
  costCents: 25,
  ...extra,
});

test('a run span and one span per step: tool, decision, refusal code, cost, attempt; parent from traceparent', () => {
  const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  const { entries } = ledger(RUN, [
    ['run.started', root({ traceparent: tp })],
    [
      'approval.requested',
      {
        step: 'pay',
        tool: 'refund.issue',
        proposalId: P1,
        args: { card: 'SECRET-ARG' },
        costCents: 25,
        reason: 'over $20',
        channel: 'cli',
      },
    ],
    ['approval.resolved', { proposalId: P1, decision: 'approved', by: 'ana' }],
    ['step.allowed', allowed('pay', P1, 1, { approvedBy: 'ana' })],
    [
      'step.completed',
      { step: 'pay', tool: 'refund.issue', proposalId: P1, output: { token: 'SECRET-OUT' }, costCents: 25 },
    ],
    [
      'step.refused',
      {
        step: 'notify',
        tool: 'mail.send',
        proposalId: null,
        check: 'validate',
        code: 'missing',
        message: 'to: SECRET-MSG missing',
      },
    ],
    ['run.finished', { status: 'refused', outputs: { x: 'SECRET-OUT' }, code: 'missing' }],
  ]);
  const spans = projectSpans(entries);
  assert.equal(spans.length, 3);
  const [run, pay, notify] = spans as [(typeof spans)[0], (typeof spans)[0], (typeof spans)[0]];
  assert.equal(run.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
  assert.equal(run.parentSpanId, '00f067aa0ba902b7');
  assert.equal(run.spanId, entrySpanId(RUN, 0));
  assert.deepEqual(run.status, { code: 'error', message: 'missing' });
  assert.equal(run.attributes['keel.run.status'], 'refused');
  assert.equal(run.attributes['keel.cost_cents'], 25);
  assert.equal(pay.parentSpanId, run.spanId);
  assert.equal(pay.spanId, entrySpanId(RUN, 3), 'a step span is named by its allow');
  assert.equal(pay.attributes['keel.tool'], 'refund.issue');
  assert.equal(pay.attributes['keel.decision'], 'allow');
  assert.equal(pay.attributes['keel.attempt'], 1);
  assert.equal(pay.attributes['keel.cost_cents'], 25);
  assert.equal(pay.attributes['keel.approval.wait_ms'], 1000);
  assert.equal(pay.startMs, Date.parse(at(1)));
  assert.equal(pay.endMs, Date.parse(at(4)));
  assert.deepEqual(pay.status, { code: 'ok' });
  assert.deepEqual(
    pay.events.map((e) => e.name),
    ['approval.requested', 'approval.resolved'],
  );
  assert.equal(notify.attributes['keel.refusal.code'], 'missing');
  assert.equal(notify.attributes['keel.refusal.check'], 'validate');
  assert.equal(notify.attributes['keel.decision'], 'refused');
  const text = otlpTraceJson(spans, {
    attributes: { 'service.name': 'keel' },
    scope: { name: 'keel', version: '1' },
  });
  for (const secret of ['SECRET-ARG', 'SECRET-OUT', 'SECRET-MSG', 'PAYLOAD-VALUE'])
    assert.ok(!text.includes(secret), secret);
});

test('links: fork, attempt, shadow, delegation both ways, and a retried attempt', () => {
  const src = hashOf('source');
  const parentRun = hashOf('parent');
  const child = hashOf('child');
  const tracedParent = '0af7651916cd43dd8448eb211c80319c';
  const { entries } = ledger(RUN, [
    [
      'run.started',
      root({
        forkOf: { runId: src, fromSeq: 3, mode: 'branch' },
        shadowOf: hashOf('live'),
        delegatedBy: { runId: parentRun, seq: 4, step: 'hand' },
      }),
    ],
    [
      'step.allowed',
      allowed('pay', P1, 1, {
        delegation: { runId: child, workflowId: 'sub', version: 1, writ: { hash: hashOf('w'), leaf: {} } },
      }),
    ],
    [
      'run.suspended',
      {
        reason: 'outcome_unknown',
        step: 'pay',
        tool: 'refund.issue',
        proposalId: P1,
        idempotencyKey: P1,
        message: 'm',
      },
    ],
    [
      'step.reconciled',
      { step: 'pay', tool: 'refund.issue', proposalId: P1, happened: false, via: 'operator', by: 'ana' },
    ],
    ['step.allowed', allowed('pay', hashOf('p2'), 2)],
    [
      'step.completed',
      { step: 'pay', tool: 'refund.issue', proposalId: hashOf('p2'), output: 1, costCents: 25 },
    ],
    ['run.finished', { status: 'completed', outputs: {} }],
  ]);
  const spans = projectSpans(entries, { traceOf: (id) => (id === parentRun ? tracedParent : undefined) });
  const run = spans[0]!;
  const byLink = Object.fromEntries(run.links.map((l) => [l.attributes['keel.link'], l]));
  assert.equal(byLink.fork_of?.spanId, entrySpanId(src, 0));
  assert.equal(byLink.fork_of?.traceId, runTraceId(src));
  assert.equal(byLink.fork_of?.attributes['keel.fork.from_seq'], 3);
  assert.equal(byLink.shadow_of?.spanId, entrySpanId(hashOf('live'), 0));
  assert.equal(
    byLink.delegated_by?.traceId,
    tracedParent,
    'a linked run traced by its caller is found in that trace',
  );
  assert.equal(byLink.delegated_by?.spanId, entrySpanId(parentRun, 4));
  const [first, second] = [spans[1]!, spans[2]!];
  assert.equal(first.links[0]?.attributes['keel.link'], 'child');
  assert.equal(first.links[0]?.spanId, entrySpanId(child, 0));
  assert.equal(first.attributes['keel.reconciled'], 'did_not_happen');
  assert.equal(second.attributes['keel.attempt'], 2);
  assert.equal(second.links[0]?.attributes['keel.link'], 'previous_attempt');
  assert.equal(second.links[0]?.spanId, first.spanId);
});

test('traceparent: valid ones parse and print back; malformed ones are named', () => {
  const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  const r = parseTraceParent(tp);
  assert.ok(r.ok);
  assert.equal(formatTraceParent(r.value), tp);
  for (const bad of [
    '',
    '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01',
    '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
    '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
    'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra',
    '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01',
  ])
    assert.equal(parseTraceParent(bad).ok, false, bad);
  // A later version may carry more fields; its first four are read.
  assert.ok(parseTraceParent('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-more').ok);
});

const stepItems = fc.array(
  fc.record({
    step: fc.constantFrom('a', 'b', 'c'),
    outcome: fc.constantFrom('completed', 'failed', 'refused', 'approval', 'model'),
    secret: fc.string({ minLength: 12, maxLength: 20 }).map((s) => `S3CR3T${s}`),
    cents: fc.nat(1000),
  }),
  { maxLength: 12 },
);

test('property: rebuilding spans from a ledger gives the same spans, ids derived from run id and seq', () => {
  fc.assert(
    fc.property(
      fc.string({ minLength: 1, maxLength: 30 }),
      stepItems,
      fc.boolean(),
      (name, steps, finish) => {
        const runId = hashOf(name);
        const items: [EntryKind, unknown][] = [['run.started', root()]];
        steps.forEach((s, i) => {
          const p = hashOf(`${name}/${i}`);
          if (s.outcome === 'refused') {
            items.push([
              'step.refused',
              { step: s.step, tool: 't', proposalId: p, check: 'policy', code: 'denied', message: s.secret },
            ]);
            return;
          }
          if (s.outcome === 'model')
            items.push([
              'source.drawn',
              {
                source: 'x-model',
                name: 'slot',
                value: s.secret,
                model: {
                  provider: 'p',
                  model: 'm',
                  inputTokens: 1,
                  outputTokens: 2,
                  costMicroUsd: 3,
                  attempts: 1,
                },
              },
            ]);
          if (s.outcome === 'approval') {
            items.push([
              'approval.requested',
              {
                step: s.step,
                tool: 't',
                proposalId: p,
                args: { v: s.secret },
                costCents: s.cents,
                reason: 'r',
                channel: 'cli',
              },
            ]);
            items.push(['approval.resolved', { proposalId: p, decision: 'approved', by: 'ana' }]);
          }
          items.push([
            'step.allowed',
            {
              step: s.step,
              tool: 't',
              proposalId: p,
              args: { v: s.secret },
              idempotencyKey: p,
              attempt: 1,
              costCents: s.cents,
            },
          ]);
          items.push(
            s.outcome === 'failed'
              ? [
                  'step.failed',
                  { step: s.step, tool: 't', proposalId: p, error: { code: 'boom', message: s.secret } },
                ]
              : [
                  'step.completed',
                  { step: s.step, tool: 't', proposalId: p, output: s.secret, costCents: s.cents },
                ],
          );
        });
        if (finish)
          items.push(['run.finished', { status: 'completed', outputs: { o: steps[0]?.secret ?? '' } }]);
        const a = ledger(runId, items);
        const first = projectSpans(a.entries);
        // Rebuilt: a second decode of the same stored bytes.
        const again = projectSpans(a.stored.map(decodeEntry));
        assert.deepEqual(again, first);
        const ids = first.map((s) => s.spanId);
        assert.equal(new Set(ids).size, ids.length, 'span ids are unique within a run');
        for (const s of first) {
          assert.match(s.spanId, /^[0-9a-f]{16}$/);
          assert.equal(s.traceId, runTraceOf(runId, root()));
          assert.equal(s.traceId, runTraceId(runId));
          assert.ok(s.endMs >= s.startMs);
        }
        assert.equal(first[0]!.spanId, entrySpanId(runId, 0));
        for (const s of first.slice(1)) {
          assert.equal(s.parentSpanId, first[0]!.spanId);
          assert.equal(s.spanId, entrySpanId(runId, s.attributes['keel.seq'] as number));
        }
        const text = JSON.stringify(first);
        for (const s of steps)
          assert.ok(!text.includes(s.secret), 'no argument, output or message value in a span');
      },
    ),
    { numRuns: 200 },
  );
});
