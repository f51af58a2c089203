/**
 * Issue 30: no question shows the reader's internal placeholder for a quotation (`q0`), wherever
 * the person's quote marks fall — across words, around a trigger's words, unbalanced — over every
 * request of the tuned sets, with quote marks placed at random (fast-check).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { compileRequest, draftSpec } from '../../src/core/authoring/index.ts';
import { BLIND2_DIR, CORPUS_DIR, HELDOUT_DIR, loadCorpus, TUNING_DIR } from './draft-corpus.ts';

const requests = [CORPUS_DIR, TUNING_DIR, HELDOUT_DIR, BLIND2_DIR]
  .flatMap((dir) => loadCorpus(dir))
  .flatMap((f) => f.cases.map((c) => ({ catalog: f.catalog, request: c.request })));

test('no question shows a quotation placeholder, wherever the quote marks fall', () => {
  const placeholder = /\bq[0-9]+\b/;
  fc.assert(
    fc.property(
      fc.nat(requests.length - 1),
      fc.constantFrom('"', "'"),
      fc.nat(400),
      fc.nat(400),
      (i, mark, a, b) => {
        const { catalog, request: r } = requests[i]!;
        const [x, y] = [Math.min(a, b) % (r.length + 1), Math.max(a, b) % (r.length + 1)];
        const request = `${r.slice(0, x)}${mark}${r.slice(x, y)}${mark}${r.slice(y)}`;
        fc.pre(!placeholder.test(request.toLowerCase()));
        for (const q of draftSpec(compileRequest(request, catalog), catalog).questions)
          assert.doesNotMatch(q.question, placeholder, `${request}\n${q.question}`);
      },
    ),
    { numRuns: 600 },
  );
});
