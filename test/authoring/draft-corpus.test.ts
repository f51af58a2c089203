/**
 * The offline draft compiler against the corpus (corpus/drafts/*.yaml): at least 90% of the
 * requests with an expected spec give exactly that spec (canonical hash after normalising names),
 * every must-ask request asks, and no draft names a tool outside its catalog. The support desk's
 * catalog is the example's own tools, so the corpus follows any change to them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { eventShapesOf } from '../../src/core/authoring/index.ts';
import { toolSteps } from '../../src/core/spec/index.ts';
import { CORPUS_DIR, FRESH_DIR, HELDOUT_DIR, loadCorpus, scoreCorpus, TUNING_DIR } from './draft-corpus.ts';

const files = loadCorpus();
const score = scoreCorpus(files);

test('the corpus has at least 80 requests, must-ask ones among them, over several catalogs', () => {
  assert.ok(score.results.length >= 80, `${score.results.length} requests`);
  assert.ok(score.askCases >= 20, `${score.askCases} must-ask requests`);
  assert.ok(new Set(files.map((f) => f.catalog.tools.map((t) => t.name).join())).size >= 3);
});

test('at least 90% of the requests with an expected spec give exactly that spec', () => {
  const misses = score.results.filter((r) => !r.c.ask && !r.exact).map((r) => r.c.request);
  assert.ok(
    score.exact / score.specCases >= 0.9,
    `${score.exact}/${score.specCases} exact; misses:\n${misses.join('\n')}`,
  );
});

test('every must-ask request asks, and none of them is publishable', () => {
  const guessed = score.results.filter((r) => r.c.ask && !r.asked).map((r) => r.c.request);
  assert.deepEqual(guessed, []);
});

test('no draft names a tool outside its catalog, and every one is DRAFT (the fresh, tuning and held-out requests too)', () => {
  const others = [FRESH_DIR, TUNING_DIR, HELDOUT_DIR].map((d) => loadCorpus(d));
  const all = [
    ...files.map((f) => ({ f, results: score.results })),
    ...others.flatMap((set) => {
      const results = scoreCorpus(set).results;
      return set.map((f) => ({ f, results: results.filter((r) => r.c.file === `${f.name}.yaml`) }));
    }),
  ];
  for (const { f, results } of all) {
    const names = new Set(f.catalog.tools.map((t) => t.name));
    for (const r of results.filter((x) => x.c.file === `${f.name}.yaml`)) {
      const spec = r.draft.spec ?? r.draft.partial;
      for (const s of spec ? toolSteps(spec) : []) assert.ok(names.has(s.tool), `${r.c.request}: ${s.tool}`);
      if (spec) assert.equal(spec.status, 'DRAFT');
      assert.ok(r.draft.publishable || r.draft.questions.length > 0, r.c.request);
    }
  }
});

test('every case is well formed: a request, and an expected spec or ask: true (with why)', () => {
  for (const f of files)
    for (const c of f.cases) {
      assert.equal(typeof c.request, 'string');
      assert.ok(
        c.ask === true ? c.expect === undefined && typeof c.why === 'string' : c.expect !== undefined,
        c.request,
      );
    }
  // Held-out files borrow a catalog and declare none of their own.
  for (const f of files.filter((x) => x.heldOut)) {
    const doc = parse(readFileSync(join(CORPUS_DIR, `${f.name}.yaml`), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(doc).sort(), ['cases', 'catalogFrom']);
  }
});

test("the held-out set's template catalog is the expense-report template's own tools and sample events", async () => {
  const { join: j } = await import('node:path');
  const { readdirSync: ls } = await import('node:fs');
  const dir = j(CORPUS_DIR, '..', '..', 'templates', 'expense-report');
  const pack = (await import(j(dir, 'keel.tools.mjs'))).default as Record<string, unknown>[];
  const declared = loadCorpus(HELDOUT_DIR).find((f) => f.name === 'expense-report')!.catalog;
  const strip = (t: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(t).filter(([k]) => k !== 'handler' && k !== 'simulate'));
  assert.deepEqual(
    declared.tools.map((t) => strip(t as never)),
    pack.map(strip),
  );
  const samples = ls(j(dir, 'events')).map((f) => JSON.parse(readFileSync(j(dir, 'events', f), 'utf8')));
  // The corpus declares each event's fields; the sample values eventShapesOf also reads are left out.
  assert.deepEqual(
    declared.events,
    eventShapesOf(samples).map(({ type, payload }) => ({ type, payload })),
  );
});

test('no publishable draft moves money differently than its words, in any set', () => {
  for (const dir of [CORPUS_DIR, FRESH_DIR, TUNING_DIR, HELDOUT_DIR]) {
    const bad = scoreCorpus(loadCorpus(dir)).results.filter((r) => r.moneyMisdraft);
    assert.deepEqual(
      bad.map((r) => r.c.request),
      [],
    );
  }
});
