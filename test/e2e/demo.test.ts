/**
 * `keel demo`: the support-desk demo runs end to end in a fresh temporary store — each workflow
 * walked up the lifecycle first (tested, then promoted one gated step at a time) — checks its own
 * promises, and says so, in text and in JSON. `keel demo lifecycle`: a v2 tested, shadowed, gated,
 * overridden, rolled out and rolled back by itself, every step recorded.
 */
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { DIGEST, okJson, runKeel, Sandbox, show } from '../helpers/keel-cli.ts';

interface DemoJson {
  ok: boolean;
  checks: { what: string; ok: boolean }[];
  runs: { runId: string; status: string; verified: boolean; history: string[] }[];
  ms: number;
  store?: string;
}

describe('keel demo', () => {
  test('prints "demo passed", exits 0, within seconds', () => {
    const sandbox = new Sandbox('demo');
    try {
      const r = runKeel(['demo'], { cwd: sandbox.dir });
      assert.equal(r.code, 0, show(r));
      assert.match(r.stdout, /demo passed: (\d+)\/\1 checks/, show(r));
      assert.doesNotMatch(r.stdout, /✗|FAILED/, show(r));
      assert.equal(r.stderr, '', show(r));
      // The lifecycle walk: tests run simulated, each step up its gate, AUTONOMOUS by a recorded override.
      assert.match(r.stdout, /refund-under-50 v1 .* as DRAFT\n {2}TESTING: 2 tests run simulated, 2 passed/);
      assert.match(r.stdout, /TESTING -> SHADOW by .*: gate met/);
      assert.match(r.stdout, /SHADOW -> LIVE by .*: gate met/);
      assert.match(r.stdout, /LIVE -> AUTONOMOUS by .*: gate overridden: /);
      // The four stories, in plain language.
      assert.match(r.stdout, /Refused issue_refund: amount_usd 500 exceeds the spend cap of 50/);
      assert.match(r.stdout, /Waiting for approval to run close_ticket/);
      assert.ok(r.ms < 20_000, `demo took ${Math.round(r.ms)} ms`);
      // It used a temporary store, not the working directory.
      assert.equal(existsSync(join(sandbox.dir, '.keel')), false);
    } finally {
      sandbox.remove();
    }
  });

  test('--json: ok, every check passed, 4+ runs each verified', () => {
    const r = runKeel(['demo', '--json', '--keep']);
    const out = okJson<DemoJson>(r);
    try {
      assert.equal(out.ok, true);
      assert.ok(out.checks.length >= 10, `only ${out.checks.length} checks`);
      for (const wf of ['refund-under-50', 'close-resolved-ticket'])
        for (const what of [
          'its tests pass, and no tool of the helpdesk was called',
          'its lifecycle records verify',
        ])
          assert.ok(
            out.checks.some((c) => c.what === `${wf}: ${what}`),
            `no check "${wf}: ${what}" in ${JSON.stringify(out.checks)}`,
          );
      assert.deepEqual(
        out.checks.filter((c) => !c.ok),
        [],
      );
      assert.ok(out.runs.length >= 4, `only ${out.runs.length} runs`);
      for (const run of out.runs) {
        assert.match(run.runId, DIGEST);
        assert.equal(run.verified, true, `run ${run.runId} did not verify`);
        assert.ok(run.history.length >= 3, `run ${run.runId} has a short history`);
      }
      assert.equal(new Set(out.runs.map((x) => x.runId)).size, out.runs.length, 'run ids are distinct');
      assert.deepEqual(out.runs.map((x) => x.status).sort(), [
        'completed',
        'completed',
        'refused',
        'refused',
      ]);
      assert.ok(typeof out.store === 'string' && existsSync(out.store), '--keep keeps the store');
      assert.ok(r.ms < 20_000, `demo took ${Math.round(r.ms)} ms`);
    } finally {
      // --keep leaves keel-demo-*/keel.db in the temp directory: remove it.
      if (out.store && basename(dirname(out.store)).startsWith('keel-demo-'))
        rmSync(dirname(out.store), { recursive: true, force: true });
    }
  });

  test('lifecycle: a v2 tested, shadowed, refused at the gate, overridden, rolled out and back, all recorded', () => {
    const sandbox = new Sandbox('demo-lifecycle');
    try {
      const text = runKeel(['demo', 'lifecycle'], { cwd: sandbox.dir });
      assert.equal(text.code, 0, show(text));
      assert.match(text.stdout, /demo passed: (\d+)\/\1 checks/, show(text));
      assert.equal(text.stderr, '', show(text));
      assert.match(text.stdout, /gate refund-under-50 v2 SHADOW -> LIVE: not met/);
      assert.match(text.stdout, /✓ v2 failed where v1 did not, and the rollout rolled itself back/);
      assert.equal(existsSync(join(sandbox.dir, '.keel')), false);

      const out = okJson<
        DemoJson & { records: { version: number; from: string; to: string; kind: string }[] }
      >(runKeel(['demo', 'lifecycle', '--json'], { cwd: sandbox.dir }));
      assert.equal(out.ok, true);
      assert.deepEqual(
        out.checks.filter((c) => !c.ok),
        [],
      );
      assert.deepEqual(
        out.records.map((r) => `v${r.version} ${r.from}->${r.to} ${r.kind}`),
        [
          'v1 DRAFT->TESTING promote',
          'v1 TESTING->SHADOW promote',
          'v1 SHADOW->LIVE promote',
          'v2 DRAFT->TESTING promote',
          'v2 TESTING->SHADOW promote',
          'v2 SHADOW->LIVE rollout',
          'v2 LIVE->SHADOW rollback',
        ],
      );
    } finally {
      sandbox.remove();
    }
  });
});
