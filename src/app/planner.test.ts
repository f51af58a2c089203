import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadRecordedModelProvider, recordedModelProvider } from '../adapters/recorded-model/index.ts';
import type { Entry, PayloadOf } from '../core/ledger/index.ts';
import type { ArgProblem } from '../core/tools/index.ts';
import type { ModelProvider, ModelRequest, Planner } from '../ports/index.ts';
import { deploy, fakeSources, spyTool } from '../testing/index.ts';
import { createKeel } from './index.ts';

const SPEC = `
id: reply
version: 1
status: LIVE
triggers: [{event: ticket}]
steps:
  - name: draft
    tool: send_reply
    args:
      ticket: "{{event.subject}}"
      body:
        $model:
          prompt: "Write a short reply to: {{event.payload.note}}"
          schema: {type: string, minLength: 1, maxLength: 200}
  - name: log
    tool: note
    args: {text: "{{steps.draft.output.echo.body}}"}
limits: {maxSteps: 3, maxCostUsd: 5}
`;

const ticket = (id: string, note = 'my parcel is late') => ({
  id,
  type: 'ticket',
  subject: 'T-1',
  time: '2026-01-01T00:00:00Z',
  payload: { note },
});

/** A provider that counts its calls around a recorded one. */
function spyProvider(response: unknown): ModelProvider & { calls: ModelRequest[] } {
  const inner = recordedModelProvider([{ match: 'parcel', response }]);
  const calls: ModelRequest[] = [];
  return {
    calls,
    complete: (r) => {
      calls.push(r);
      return inner.complete(r);
    },
  };
}

function setup(response: unknown = 'Sorry! It ships today.', o: { planner?: Planner } = {}) {
  const provider = spyProvider(response);
  const send = spyTool('send_reply', {
    args: {
      type: 'object',
      required: ['ticket', 'body'],
      additionalProperties: false,
      properties: { ticket: { type: 'string' }, body: { type: 'string', maxLength: 120 } },
    },
  });
  const note = spyTool('note');
  const keel = createKeel({
    store: ':memory:',
    tools: [send, note],
    sources: fakeSources(),
    modelProvider: provider,
    ...(o.planner ? { planner: o.planner } : {}),
  });
  return { keel, provider, send, note };
}

const kinds = (entries: readonly Entry[]) => entries.map((e) => e.kind);
const refusal = (entries: readonly Entry[]) =>
  entries.find((e) => e.kind === 'step.refused')?.payload as PayloadOf<'step.refused'>;

describe('model slots', () => {
  test('a run gets the model value for its open slot, ledgered as x-model before the allow', async () => {
    const { keel, provider, send } = setup();
    await deploy(keel, 't1', SPEC);
    const [run] = (await keel.events.emit('t1', ticket('e1'))).runs;
    assert.equal(run!.status, 'completed');
    assert.deepEqual(send.calls[0]!.args, { ticket: 'T-1', body: 'Sorry! It ships today.' });

    // The provider got the resolved prompt, the slot schema and a catalog of descriptors only.
    assert.equal(provider.calls.length, 1);
    const req = provider.calls[0]!;
    assert.equal(req.prompt, 'Write a short reply to: my parcel is late');
    assert.deepEqual(req.schema, { type: 'string', minLength: 1, maxLength: 200 });
    const sendEntry = req.catalog.find((t) => t.name === 'send_reply')!;
    assert.deepEqual(Object.keys(sendEntry).sort(), ['args', 'description', 'name']);
    assert.equal(
      req.catalog.some((t) => 'handler' in t),
      false,
    );

    const entries = await keel.runs.entries('t1', run!.runId);
    const drawn = entries.findIndex((e) => e.kind === 'source.drawn');
    const allowed = entries.findIndex((e) => e.kind === 'step.allowed');
    assert.ok(drawn > 0 && drawn < allowed, `x-model drawn before the allow: ${kinds(entries).join(', ')}`);
    assert.deepEqual(entries[drawn]!.payload, {
      source: 'x-model',
      name: 'body',
      value: 'Sorry! It ships today.',
    });
    assert.equal((await keel.runs.verify('t1', run!.runId)).ok, true);
    const history = await keel.runs.history('t1', run!.runId);
    assert.ok(history.some((h) => h.text.startsWith('A model filled body')));
    await keel.close();
  });

  test('replay and replay forks serve the recorded model value; a branch fork asks the model again', async () => {
    const { keel, provider, send } = setup();
    await deploy(keel, 't1', SPEC);
    const [run] = (await keel.events.emit('t1', ticket('e2'))).runs;
    assert.equal(provider.calls.length, 1);

    const replay = await keel.runs.replay('t1', run!.runId);
    assert.equal(replay.identical, true);
    assert.equal(provider.calls.length, 1, 'replay never calls the provider');

    const fork = await keel.runs.fork('t1', run!.runId, { fromSeq: 0, mode: 'replay' });
    assert.equal(fork.status, 'completed');
    assert.equal(provider.calls.length, 1, 'a replay fork never calls the provider');
    const forkDraw = (await keel.runs.entries('t1', fork.runId)).find((e) => e.kind === 'source.drawn');
    assert.deepEqual(forkDraw!.payload, { source: 'x-model', name: 'body', value: 'Sorry! It ships today.' });
    // From seq 2 the fork inherits the draw itself and continues from it.
    const late = await keel.runs.fork('t1', run!.runId, { fromSeq: 2, mode: 'replay' });
    assert.equal(late.status, 'completed');
    assert.equal(provider.calls.length, 1);
    assert.equal((await keel.runs.replay('t1', fork.runId)).identical, true);

    // A branch fork that inherits the draw (fork point after it) uses it, like a walk resumed after a crash.
    const inherited = await keel.runs.fork('t1', run!.runId, { fromSeq: 2, mode: 'branch' });
    assert.equal(inherited.status, 'completed');
    assert.equal(provider.calls.length, 1);

    const calls = send.calls.length;
    const branch = await keel.runs.fork('t1', run!.runId, { fromSeq: 0, mode: 'branch' });
    assert.equal(branch.status, 'completed');
    assert.equal(provider.calls.length, 2, 'a branch fork draws afresh');
    assert.equal(send.calls.length, calls + 1);
    assert.equal((await keel.runs.verify('t1', branch.runId)).ok, true);
    await keel.close();
  });

  test('a keel without a provider still replays a model run from its ledger', async () => {
    const { keel } = setup();
    await deploy(keel, 't1', SPEC);
    const [run] = (await keel.events.emit('t1', ticket('e3'))).runs;
    // The same descriptors (so the same proposals), but no model provider and no sources.
    const again = createKeel({
      store: keel.store,
      tools: ['send_reply', 'note'].map((n) => ({ ...keel.tools.get(n)! })),
    });
    assert.equal((await again.runs.replay('t1', run!.runId)).identical, true);
    await keel.close();
  });

  test('a value violating the slot schema is refused with its problems, and the tool is never called', async () => {
    const { keel, send } = setup('');
    await deploy(keel, 't1', SPEC);
    const [run] = (await keel.events.emit('t1', ticket('e4'))).runs;
    assert.equal(run!.status, 'refused');
    assert.equal(send.calls.length, 0);
    const entries = await keel.runs.entries('t1', run!.runId);
    assert.deepEqual(kinds(entries), ['run.started', 'source.drawn', 'step.refused', 'run.finished']);
    const refused = entries[2]!.payload as PayloadOf<'step.refused'>;
    assert.equal(refused.check, 'validate');
    assert.equal(refused.code, 'slot_invalid');
    assert.equal(refused.proposalId, null);
    assert.deepEqual(
      (refused.problems as ArgProblem[] | undefined)?.map((p) => [p.field, p.problem]),
      [['body', 'out_of_range']],
    );
    assert.equal((await keel.runs.replay('t1', run!.runId)).identical, true);
    await keel.close();
  });

  test("the tool's own argument schema still applies after the slot schema", async () => {
    const { keel, send } = setup('x'.repeat(150)); // fits the slot (≤ 200), not the tool (≤ 120)
    await deploy(keel, 't1', SPEC);
    const [run] = (await keel.events.emit('t1', ticket('e5'))).runs;
    assert.equal(run!.status, 'refused');
    assert.equal(send.calls.length, 0);
    const refused = refusal(await keel.runs.entries('t1', run!.runId));
    assert.equal(refused.check, 'validate');
    assert.notEqual(refused.code, 'slot_invalid');
    assert.equal((refused.problems as ArgProblem[] | undefined)?.[0]?.field, 'body');
    await keel.close();
  });

  test('a planner cannot fill arguments the spec does not leave open', async () => {
    const greedy: Planner = {
      name: 'greedy',
      async fill(view) {
        const body = await view.model!.complete('body');
        return { body, ticket: 'T-999' };
      },
    };
    const { keel, send } = setup(undefined, { planner: greedy });
    await deploy(keel, 't1', SPEC);
    const [run] = (await keel.events.emit('t1', ticket('e6'))).runs;
    assert.equal(run!.status, 'refused');
    assert.equal(send.calls.length, 0);
    const refused = refusal(await keel.runs.entries('t1', run!.runId));
    assert.equal(refused.code, 'slot_not_open');
    assert.match(refused.message, /ticket/);
    await keel.close();
  });

  test('a planner can neither ask the model about a closed argument nor change its view', async () => {
    let mutated: unknown;
    const sneaky: Planner = {
      name: 'sneaky',
      async fill(view) {
        try {
          (view.step.args as Record<string, unknown>).ticket = 'T-999';
        } catch (e) {
          mutated = e;
        }
        return { ticket: await view.model!.complete('ticket') };
      },
    };
    const { keel, provider, send } = setup(undefined, { planner: sneaky });
    await deploy(keel, 't1', SPEC);
    // The planner's error ends the run, recorded (it never leaves the run running).
    const [run] = (await keel.events.emit('t1', ticket('e7'))).runs;
    assert.equal(run!.status, 'failed');
    assert.match(run!.reason ?? '', /does not leave open/);
    assert.ok(mutated instanceof TypeError, 'the view is frozen');
    assert.equal(provider.calls.length, 0);
    assert.equal(send.calls.length, 0);
    await keel.close();
  });
});

describe('model slots without a provider', () => {
  test('publish refuses a spec with a model slot, naming the step and argument', async () => {
    const keel = createKeel({ store: ':memory:', tools: [spyTool('send_reply'), spyTool('note')] });
    assert.throws(
      () => keel.workflows.validate(SPEC, 'reply.yaml'),
      (e: Error) => /steps\[0\]\.args\.body/.test(e.message) && /no model provider/.test(e.message),
    );
    await assert.rejects(deploy(keel, 't1', SPEC), /steps\[0\]\.args\.body/);
    await keel.close();
  });

  test('a version published elsewhere is refused at run time as slot_unfilled', async () => {
    const { keel } = setup();
    await deploy(keel, 't1', SPEC);
    const send = spyTool('send_reply');
    const bare = createKeel({ store: keel.store, tools: [send, spyTool('note')], sources: fakeSources() });
    const [run] = (await bare.events.emit('t1', ticket('e8'))).runs;
    assert.equal(run!.status, 'refused');
    assert.equal(send.calls.length, 0);
    const refused = refusal(await bare.runs.entries('t1', run!.runId));
    assert.equal(refused.code, 'slot_unfilled');
    assert.match(refused.message, /no model provider/);
    await keel.close();
  });

  test('slots must have the slot shape, at the top level of a step', async () => {
    const { keel } = setup();
    const nested = SPEC.replace(
      '      body:\n        $model:',
      '      body:\n        inner:\n          $model:',
    )
      .replace('          prompt:', '            prompt:')
      .replace('          schema:', '            schema:');
    assert.throws(() => keel.workflows.validate(nested, 'n.yaml'), /whole top-level argument/);
    const extra = SPEC.replace('schema: {type: string', 'tool: other\n          schema: {type: string');
    assert.throws(() => keel.workflows.validate(extra, 'x.yaml'), /model slot is written/);
    const bad = SPEC.replace('{type: string, minLength: 1, maxLength: 200}', '{type: strung}');
    assert.throws(() => keel.workflows.validate(bad, 'b.yaml'), /not a valid JSON Schema/);
    await keel.close();
  });
});

describe('recorded model provider', () => {
  test('answers by prompt text, fails loudly on an unrecorded prompt, loads from a file', async () => {
    const p = recordedModelProvider([
      { match: 'refund', response: { amount: 12 } },
      { match: '*', response: 'fallback' },
    ]);
    const req = { schema: {}, catalog: [] };
    assert.deepEqual(await p.complete({ prompt: 'a refund please', ...req }), { amount: 12 });
    assert.equal(await p.complete({ prompt: 'anything', ...req }), 'fallback');
    assert.equal(p.requests.length, 2);
    await assert.rejects(
      recordedModelProvider([{ match: 'x', response: 1 }]).complete({ prompt: 'y', ...req }),
      /no recorded model response matches/,
    );
    const dir = mkdtempSync(join(tmpdir(), 'keel-model-'));
    try {
      const file = join(dir, 'responses.json');
      writeFileSync(file, JSON.stringify({ responses: [{ match: 'hi', response: [1, 2] }] }));
      assert.deepEqual(await loadRecordedModelProvider(file).complete({ prompt: 'hi', ...req }), [1, 2]);
      writeFileSync(file, JSON.stringify({ responses: [{ response: 1 }] }));
      assert.throws(() => loadRecordedModelProvider(file), /responses\[0\]/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
