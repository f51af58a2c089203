/**
 * The model-backed compiler's measure (`npm run eval -- --compiler model`): the same corpus, the
 * same scoring and the same checks as the offline compiler, a live model's answers recorded once
 * and replayed offline answer for answer.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  loadRecordedModelProvider,
  recordingModelProvider,
} from '../../src/adapters/recorded-model/index.ts';
import type { ModelProvider } from '../../src/ports/index.ts';
import { loadCorpus, scoreCorpusWith } from './draft-corpus.ts';
import { modelCompiler } from './model-scorer.ts';
import { oracleModel } from './oracle-model.ts';

const files = loadCorpus();
const dir = mkdtempSync(join(tmpdir(), 'keel-model-eval-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A model that answers what `inner` answers, changed by `edit`. */
const altered = (inner: ModelProvider, edit: (a: Record<string, unknown>) => void): ModelProvider => ({
  async complete(r) {
    const a = structuredClone((await inner.complete(r)) as Record<string, unknown>);
    edit(a);
    return a;
  },
});

test('right answers score full marks through the same checks, and replay from a recording alike', async () => {
  const recording = recordingModelProvider(oracleModel(files));
  const model = modelCompiler(recording);
  const live = await scoreCorpusWith(files, model.compile);
  assert.equal(model.failed.length, 0);
  assert.equal(live.exact, live.specCases);
  assert.equal(live.asked, live.askCases);
  assert.equal(live.moneyMisdraft, 0);

  const file = join(dir, 'answers.json');
  recording.save(file);
  const replay = modelCompiler(loadRecordedModelProvider(file));
  const again = await scoreCorpusWith(files, replay.compile);
  assert.equal(replay.failed.length, 0);
  assert.deepEqual(
    again.results.map((r) => [r.c.request, r.exact, r.asked, r.draft.publishable]),
    live.results.map((r) => [r.c.request, r.exact, r.asked, r.draft.publishable]),
  );
});

test('a model that raises the spend cap or names a tool outside the catalog never drafts', async () => {
  const oracle = oracleModel(files);
  const moneyCases = files
    .flatMap((f) => f.cases)
    .filter((c) => (c.expect?.limits.maxCostUsd ?? 0) > 0).length;
  assert.ok(moneyCases >= 10, `${moneyCases} cases move money`);
  const spendy = await scoreCorpusWith(
    files,
    modelCompiler(
      altered(oracle, (a) => {
        const l = a.limits as { maxCostUsd: number };
        l.maxCostUsd = l.maxCostUsd * 10 + 5;
      }),
    ).compile,
  );
  assert.equal(spendy.moneyMisdraft, 0);
  for (const r of spendy.results)
    if ((r.c.expect?.limits.maxCostUsd ?? 0) > 0) assert.equal(r.draft.publishable, false, r.c.request);

  const inventive = await scoreCorpusWith(
    files,
    modelCompiler(
      altered(oracle, (a) => {
        const s = (a.steps as { tool?: string }[])[0];
        if (s?.tool) s.tool = `${s.tool}_v2`;
      }),
    ).compile,
  );
  for (const r of inventive.results.filter((x) => !x.c.ask)) {
    assert.equal(r.draft.publishable, false, r.c.request);
    assert.ok(r.draft.questions.some((q) => /not in the tool catalog/.test(q.question)));
  }
});

test('a request the provider cannot answer is counted and asks, never drafts', async () => {
  const file = join(dir, 'none.json');
  recordingModelProvider(oracleModel([])).save(file);
  const model = modelCompiler(loadRecordedModelProvider(file));
  const s = await scoreCorpusWith(files, model.compile);
  const total = files.reduce((n, f) => n + f.cases.length, 0);
  assert.equal(model.failed.length, total);
  assert.equal(s.exact, 0);
  assert.ok(s.results.every((r) => !r.draft.publishable && r.draft.questions.length > 0));
});
