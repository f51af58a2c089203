/**
 * `keel pause`, `keel resume` and `keel cancel` through the real binary on a SQLite file: a run
 * left to a worker is held, resumed and walked; a waiting run is cancelled; refusals exit 4 (a
 * finished run) or 3 (another tenant's run), and every ledger verifies.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { failJson, okJson, Sandbox } from '../helpers/keel-cli.ts';

const sandbox = new Sandbox('run-control');
after(() => sandbox.remove());
const keel = (...args: string[]) =>
  sandbox.keel(['--tenant', 'acme', '--json', ...args], { env: { KEEL_USER: 'dana' } });

const SPEC = `id: gated
version: 1
status: DRAFT
triggers: [{ event: go }]
steps:
  - { name: first, tool: core.noop }
  - { name: gate, tool: core.approvalGate }
limits: { maxSteps: 2, maxCostUsd: 0 }
`;

test('pause, resume and cancel record who did it; refusals exit with the conflict and not-found codes', () => {
  okJson(keel('publish', sandbox.write('gated.yaml', SPEC)));
  const event = (id: string) =>
    sandbox.write(`${id}.json`, { id, type: 'go', time: '2026-01-01T00:00:00Z', payload: {} });
  const run = okJson<{ runId: string; status: string }>(
    keel('run', 'gated', event('e1'), '--enqueue', '--live', '--yes'),
  );
  assert.equal(run.status, 'running');
  assert.equal(okJson<{ status: string }>(keel('pause', run.runId, '--reason', 'hold on')).status, 'paused');
  assert.equal(failJson(keel('pause', run.runId), 4).error, 'run_state');
  assert.equal(okJson<{ status: string }>(keel('resume', run.runId)).status, 'waiting_approval');
  assert.equal(
    failJson(sandbox.keel(['--tenant', 'globex', '--json', 'cancel', run.runId]), 3).error,
    'not_found',
  );
  assert.equal(
    okJson<{ status: string }>(keel('cancel', run.runId, '--reason', 'duplicate')).status,
    'cancelled',
  );
  assert.equal(failJson(keel('cancel', run.runId), 4).error, 'run_terminal');
  const history = okJson<{ kind: string; text: string }[]>(keel('history', run.runId));
  assert.deepEqual(
    history.map((h) => h.kind),
    [
      'run.started',
      'run.paused',
      'run.resumed',
      'step.allowed',
      'step.completed',
      'approval.requested',
      'run.finished',
    ],
  );
  assert.match(history.at(-1)!.text, /cancelled by dana: duplicate/);
  assert.equal(okJson<{ ok: boolean }>(keel('verify', run.runId)).ok, true);
  assert.equal(okJson<{ identical: boolean }>(keel('replay', run.runId)).identical, true);
});
