import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createKeel } from '../app/index.ts';
import { hashOf } from '../core/canonical/index.ts';
import { payloadOf } from '../core/ledger/index.ts';
import { deploy, fakeSources, spyTool } from '../testing/index.ts';

const SPEC = `
id: secrets
version: 1
status: AUTONOMOUS
env: [API_TOKEN, REGION]
triggers: [{event: go}]
steps:
  - {name: call, tool: call, args: {token: "{{env.API_TOKEN}}", region: "{{env.REGION}}"}}
limits: {maxSteps: 1, maxCostUsd: 0}
`;
const CLEAR = 'tok-Zr9-very-secret';

test('a secret env value is ledgered as its hash, never in clear, and the tool still receives it', async () => {
  const call = spyTool('call');
  const keel = createKeel({
    store: ':memory:',
    tools: [call],
    sources: fakeSources({ env: { API_TOKEN: CLEAR, REGION: 'eu' } }),
  });
  await deploy(keel, 't1', SPEC);
  const [run] = (
    await keel.events.emit('t1', { id: 's', type: 'go', time: '2026-01-01T00:00:00Z', payload: {} })
  ).runs;
  assert.equal(run!.status, 'completed');
  assert.equal(call.calls[0]!.args.token, CLEAR);
  const stored = await keel.runs.storedEntries('t1', run!.runId);
  for (const e of stored)
    assert.ok(!Buffer.from(e.payload).toString('utf8').includes(CLEAR), `clear secret in ${e.kind}`);
  const entries = await keel.runs.entries('t1', run!.runId);
  const drawn = entries.filter((e) => e.kind === 'source.drawn').map((e) => payloadOf(e, 'source.drawn'));
  assert.deepEqual(drawn.find((d) => d.name === 'API_TOKEN')?.value, {
    $secret: hashOf(CLEAR),
    env: 'API_TOKEN',
  });
  assert.equal(drawn.find((d) => d.name === 'REGION')?.value, 'eu', 'a plain env value is recorded as is');
  // The spy echoes its arguments: the secret it was given is masked in the recorded output.
  const completed = payloadOf(entries.find((e) => e.kind === 'step.completed')!, 'step.completed');
  assert.deepEqual((completed.output as { echo: unknown }).echo, {
    region: 'eu',
    token: '[secret API_TOKEN]',
  });
  // The run still replays identically from the record alone.
  assert.equal((await keel.runs.replay('t1', run!.runId)).identical, true);
  await keel.close();
});

test('a secret that changed between the draw and the call fails the step instead of using another value', async () => {
  const env: Record<string, string> = { API_TOKEN: CLEAR, REGION: 'eu' };
  const call = spyTool('call', {
    handler: () => ({ ok: true }),
  });
  const sources = fakeSources({ env });
  // The env changes as soon as it has been read once for the draw.
  const get = sources.env.get;
  let reads = 0;
  sources.env.get = (name) => (name === 'API_TOKEN' && reads++ > 0 ? 'rotated' : get(name));
  const keel = createKeel({ store: ':memory:', tools: [call], sources });
  await deploy(keel, 't1', SPEC);
  const [run] = (
    await keel.events.emit('t1', { id: 's2', type: 'go', time: '2026-01-01T00:00:00Z', payload: {} })
  ).runs;
  assert.equal(run!.status, 'failed');
  assert.equal(call.calls.length, 0);
  const failed = (await keel.runs.entries('t1', run!.runId)).find((e) => e.kind === 'step.failed')!;
  assert.equal(payloadOf(failed, 'step.failed').error.code, 'secret_changed');
  await keel.close();
});
