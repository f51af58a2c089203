/**
 * `keel explain`'s read-back of every example spec, of the specs `keel init` writes and of every
 * template's (`keel init --template`, over the template's own tool pack and, where it has one, its
 * policy), against
 * golden files reviewed by a person (test/golden/explain/*.txt). A change to the wording shows up
 * here as a diff to review; `KEEL_UPDATE_GOLDEN=1` rewrites them.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { initProject } from '../../src/cli/init.ts';
import { type ExplainPolicy, explainSpec } from '../../src/core/authoring/index.ts';
import { parsePolicy } from '../../src/core/policy/index.ts';
import { parseSpec, type WorkflowSpec } from '../../src/core/spec/index.ts';
import type { ToolDescriptor } from '../../src/core/tools/index.ts';
import { loadPlanModule } from '../../src/plan/index.ts';
import { supportDeskCatalog } from '../authoring/support-desk-catalog.ts';

const here = dirname(fileURLToPath(import.meta.url));
const examples = join(here, '..', '..', 'examples', 'support-desk');
const goldenDir = join(here, 'explain');
const catalog = supportDeskCatalog();
const options = {
  knownTool: (n: string) => catalog.some((t) => t.name === n),
  describeTool: (n: string) => catalog.find((t) => t.name === n),
};

function checkGolden(
  name: string,
  spec: WorkflowSpec,
  tools: readonly ToolDescriptor[] = catalog,
  governed?: ExplainPolicy,
): void {
  const text = `${explainSpec(spec, tools, governed).text}\n`;
  const file = join(goldenDir, `${name}.txt`);
  if (process.env.KEEL_UPDATE_GOLDEN === '1') writeFileSync(file, text);
  assert.equal(text, readFileSync(file, 'utf8'), `${name}: the read-back differs from ${file}`);
}

// Every spec of the example: its hooks file (keel.hooks.yaml) is not a spec.
for (const f of readdirSync(examples).filter((f) => f.endsWith('.yaml') && !f.startsWith('keel.'))) {
  test(`explain ${f} reads as its golden file`, () => {
    checkGolden(basename(f, '.yaml'), parseSpec(readFileSync(join(examples, f), 'utf8'), f, options));
  });
}

test('explain of the plan module keel init writes reads as its golden file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'keel-explain-'));
  try {
    initProject(dir);
    const { spec } = await loadPlanModule(join(dir, 'workflows', 'acknowledge-ticket.plan.ts'), options);
    checkGolden('acknowledge-ticket', spec);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const templates = join(here, '..', '..', 'templates');
for (const name of readdirSync(templates).filter((f) => !f.includes('.'))) {
  test(`explain of the ${name} template's workflows reads as its golden files`, async () => {
    const pack = (await import(pathToFileURL(join(templates, name, 'keel.tools.mjs')).href)).default;
    const tools = (typeof pack === 'function' ? await pack() : pack) as ToolDescriptor[];
    const byName = (n: string) => tools.find((t) => t.name === n);
    // A template's policy is the tenant's once it is given (--policy policy.yaml, as its README says).
    const policyFile = join(templates, name, 'policy.yaml');
    const governed = existsSync(policyFile)
      ? { policy: parsePolicy(readFileSync(policyFile, 'utf8'), policyFile), tenant: 'acme' }
      : undefined;
    const dir = join(templates, name, 'workflows');
    const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
    assert.ok(files.length > 0, `${name} has workflows`);
    for (const f of files) {
      const spec = parseSpec(readFileSync(join(dir, f), 'utf8'), f, {
        knownTool: (n) => byName(n) !== undefined,
        describeTool: byName,
      });
      checkGolden(`template-${name}-${basename(f, '.yaml')}`, spec, tools, governed);
    }
  });
}

test('the read-back names every risk the catalog declares', () => {
  const spec = parseSpec(readFileSync(join(examples, 'refund-under-50.yaml'), 'utf8'), 'r.yaml', options);
  const r = explainSpec(spec, catalog);
  assert.match(r.summary, /^When a refund is requested, if its currency is "USD": 1\. /);
  assert.ok(r.risks.some((l) => /refund \(issue_refund\) is destructive/.test(l)));
  assert.ok(r.risks.some((l) => /over \$50 is refused before issue_refund is called/.test(l)));
  // Without the catalog's descriptors a step's tool is flagged, never described as harmless.
  const bare = explainSpec(spec, []);
  assert.ok(bare.risks.every((l) => /not in the tool catalog/.test(l)));
  // Deterministic: the same spec and catalog read back the same.
  assert.deepEqual(explainSpec(spec, catalog), r);
});
