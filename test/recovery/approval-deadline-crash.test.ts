/**
 * Approval deadlines survive crashes, with real processes: runs wait for a person's approval with
 * a deadline (`then: deny`) while the `keel serve` walking them (embedded walkers) is SIGKILLed
 * right around the deadlines, as they fire, and restarted. Afterwards every run is refused with
 * exactly one `approval.expired` (its deadline acted once), never before its deadline, the
 * payment it waited for never happened (counted on the tool's own side), and every ledger verifies
 * and replays. On SQLite.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createKeel } from '../../src/app/index.ts';
import { payloadOf } from '../../src/core/ledger/index.ts';
import { parsePolicy } from '../../src/core/policy/index.ts';
import { deploy } from '../../src/testing/index.ts';
import { countRuns, crashSites, sleep, until } from './crash-site.ts';
import { crashTools } from './crash-tools.ts';

const RUNS = 30;
const TIMEOUT_S = 4;
const POLICY = 'default: allow\nrules:\n  - {id: ask, match: {tool: pay}, outcome: require_approval}\n';
const SPEC = `id: payouts
version: 1
status: AUTONOMOUS
triggers: [{ event: go }]
steps:
  - { name: a, tool: note }
  - name: pay
    tool: pay
    approval: { timeout: ${TIMEOUT_S}s, then: deny }
limits: { maxSteps: 4, maxCostUsd: 0 }
`;

const sites = crashSites();

test('approval deadlines on SQLite: keel serve SIGKILLed while deadlines fire; each expires once, nothing paid', async (t) => {
  const site = sites.sqlite('approval-deadline-crash');
  const policyFile = join(site.sandbox.dir, 'policy.yaml');
  writeFileSync(policyFile, POLICY);
  const policy = parsePolicy(POLICY, 'policy.yaml');
  const keel = createKeel({
    store: site.keelStore,
    tools: crashTools(site.log),
    walk: 'enqueue',
    policies: { acme: policy },
  });
  try {
    await deploy(keel, 'acme', SPEC);
    const start = () => site.serve(['--policy', policyFile, '--tenant', 'acme']);
    let server = await start();
    for (let b = 0; b < 3; b++) {
      for (let i = 0; i < RUNS / 3; i++)
        await keel.events.emit('acme', {
          id: `e${b}-${i}`,
          type: 'go',
          time: '2026-01-01T00:00:00Z',
          payload: {},
        });
      await sleep(500);
    }
    await until(
      'every run waits for its approval',
      60_000,
      async () => (await countRuns(keel, 'waiting_approval')) + (await countRuns(keel, 'refused')) === RUNS,
    );
    const runs = (await keel.runs.list('acme', { limit: 1000 })).runs;
    const deadlines: number[] = [];
    for (const r of runs) {
      const req = (await keel.runs.entries('acme', r.runId)).find((e) => e.kind === 'approval.requested')!;
      deadlines.push(Date.parse(payloadOf(req, 'approval.requested').deadline!));
    }
    deadlines.sort((a, b) => a - b);
    // Kill right around the deadlines, while they fire; restart.
    // (a worker finds a due deadline at its poll, every second): some have expired, some not yet.
    await sleep(Math.max(0, deadlines[Math.floor(deadlines.length / 3)]! + 1200 - Date.now()));
    const expiredBeforeKill = await countRuns(keel, 'refused');
    await server.kill9();
    await sleep(300);
    server = await start();
    await until('every run expired', 60_000, async () => (await countRuns(keel, 'refused')) === RUNS);
    const paid = (await site.log.rows()).filter((r) => r.tool === 'pay');
    assert.deepEqual(paid, [], 'no payment happened');
    for (const r of runs) {
      const entries = await keel.runs.entries('acme', r.runId);
      const expired = entries.filter((e) => e.kind === 'approval.expired');
      assert.equal(expired.length, 1, `${r.runId}: its deadline acted once`);
      const p = payloadOf(expired[0]!, 'approval.expired');
      assert.ok(Date.parse(p.at) >= Date.parse(p.deadline), `${r.runId}: never before its deadline`);
      assert.equal(payloadOf(entries.at(-2)!, 'step.refused').code, 'approval_timeout');
      assert.ok((await keel.runs.verify('acme', r.runId)).ok, `run ${r.runId} verifies`);
      assert.equal((await keel.runs.replay('acme', r.runId)).identical, true, `run ${r.runId} replays`);
    }
    t.diagnostic(
      `${RUNS} runs waited for an approval with a ${TIMEOUT_S}s deadline; SIGKILL with ${expiredBeforeKill} expired: all expired once, nothing paid`,
    );
    assert.equal(await server.stop(), 0);
  } finally {
    await keel.close();
  }
});
