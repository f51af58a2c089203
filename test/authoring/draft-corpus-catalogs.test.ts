/**
 * The fourth blind set's catalogs (corpus/drafts-blind4), checked without compiling any of its
 * requests: its template catalogs are the templates' own tools and sample events, its own
 * catalog's tools are descriptors Keel accepts, and every case is a request with an expected spec
 * or `ask: true` with why. The set is never run through the compiler here: it is scored only by
 * `npm run eval -- --blind4`.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { eventShapesOf } from '../../src/core/authoring/index.ts';
import { checkToolDescriptor } from '../../src/core/tools/index.ts';
import { BLIND4_DIR, loadCorpus } from './draft-corpus.ts';

const files = loadCorpus(BLIND4_DIR);
const templatesDir = join(BLIND4_DIR, '..', '..', 'templates');

for (const name of ['data-export-request', 'support-refunds'])
  test(`the fourth blind set's ${name} catalog is the ${name} template's own tools and sample events`, async () => {
    const dir = join(templatesDir, name);
    const pack = (await import(join(dir, 'keel.tools.mjs'))).default as Record<string, unknown>[];
    const declared = files.find((f) => f.name === name)?.catalog;
    assert.ok(declared, `corpus/drafts-blind4/${name}.yaml`);
    const strip = (t: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(t).filter(([k]) => k !== 'handler' && k !== 'simulate'));
    assert.deepEqual(
      declared.tools.map((t) => strip(t as never)),
      pack.map(strip),
    );
    // The events are the template's sample events, read as `keel draft` reads them (with their
    // sample values): the file names its template and declares none of its own.
    const samples = readdirSync(join(dir, 'events')).map((f) =>
      JSON.parse(readFileSync(join(dir, 'events', f), 'utf8')),
    );
    assert.deepEqual(declared.events, eventShapesOf(samples));
    assert.ok(
      declared.events?.some((e) => e.values !== undefined),
      'the sample values are part of the catalog',
    );
  });

test("the fourth blind set's own catalog declares tools Keel accepts, one of them moving money", () => {
  const own = files.find((f) => f.name === 'people-ops')?.catalog;
  assert.ok(own, 'corpus/drafts-blind4/people-ops.yaml');
  for (const t of own.tools) {
    const checked = checkToolDescriptor(t);
    assert.ok(checked.ok, `${t.name}: ${JSON.stringify(checked)}`);
  }
  assert.deepEqual(
    own.tools.filter((t) => t.cost?.fromArg !== undefined).map((t) => t.name),
    ['order_equipment'],
  );
  assert.deepEqual(
    (own.events ?? []).map((e) => e.type),
    ['employee.hired', 'employee.leaving'],
  );
});

test('every case of the fourth blind set is a request with an expected spec, or ask: true with why', () => {
  assert.deepEqual(
    files.map((f) => f.name),
    ['data-export-request', 'people-ops', 'support-refunds'],
  );
  let spec = 0;
  let ask = 0;
  for (const f of files)
    for (const c of f.cases) {
      assert.equal(typeof c.request, 'string', f.name);
      if (c.ask === true) {
        assert.ok(c.expect === undefined && typeof c.why === 'string' && c.why.length > 0, c.request);
        ask++;
      } else {
        assert.ok(c.expect !== undefined && c.expect.steps.length > 0, c.request);
        spec++;
      }
    }
  assert.ok(spec >= 42 && ask >= 28, `${spec} with a spec, ${ask} must ask`);
});
