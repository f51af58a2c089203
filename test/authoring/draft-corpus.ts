/**
 * The draft corpus (corpus/drafts/*.yaml) and how the offline compiler is scored on it, shared by
 * its suite test and `npm run eval`. A case either expects a spec (compared by canonical hash of
 * triggers, steps as {tool, args} and limits: ids, step names and descriptions are normalised
 * away) or must ask (`ask: true`: any question, and nothing publishable).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import {
  type CompiledRequest,
  compileRequest,
  type Draft,
  type DraftCatalog,
  draftSpec,
  type EventShape,
  eventShapesOf,
  type TestedSpec,
  withTestedValues,
} from '../../src/core/authoring/index.ts';
import { hashOf } from '../../src/core/canonical/index.ts';
import {
  conditionKey,
  normalizeCondition,
  parseStepCondition,
  type StepSpec,
  type TriggerSpec,
  toolSteps,
  type WorkflowLimits,
} from '../../src/core/spec/index.ts';
import type { ToolDescriptor } from '../../src/core/tools/index.ts';
import { supportDeskCatalog } from './support-desk-catalog.ts';

/** A folder of corpus/, beside test/. */
const corpusDir = (name: string) => join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'corpus', name);

export const CORPUS_DIR = corpusDir('drafts');
/** Requests written after the last change to the compiler, measured, never tuned on (not in the bar). */
export const FRESH_DIR = corpusDir('fresh');
/**
 * Issue 30's held-out set: requests typed as support leads, finance and IT people type them, over
 * the support desk, the finance desk and the expense-report template. Measured before and after the
 * compiler changes it was written for, never tuned on; not in the suite's bar.
 */
/** Issue 30's tuning set: its own examples and a few more of each class (tuned on, unlike HELDOUT_DIR). */
export const TUNING_DIR = corpusDir('drafts-tuning');
export const HELDOUT_DIR = corpusDir('drafts-heldout');

/**
 * Issue 30's blind set: written by someone who never saw the compiler or the other sets' requests,
 * over the support desk, the finance desk and the oncall-escalation template; never run through
 * the compiler before it was committed, never tuned on, not in any suite bar.
 */
export const BLIND_DIR = corpusDir('drafts-blind');

/**
 * Issue 30's second blind set, the honest measure once the first was read and tuned on: written
 * without seeing the compiler, its docs or the other sets' requests (the first blind set read for
 * its format and labelling conventions only), over the access-request and ticket-triage templates
 * and the support desk; never run through the compiler before it was committed, never tuned on, not
 * in any suite bar.
 */
export const BLIND2_DIR = corpusDir('drafts-blind2');

/**
 * Issue 30's third blind set, written once the second was read and tuned on, the same way (the
 * compiler, its docs and the other sets' requests unseen; the second blind set read for its format
 * and labelling conventions only), over the ops desk and the invoice-approval and
 * content-moderation templates; never run through the compiler before it was committed, never
 * tuned on, not in any suite bar.
 */
export const BLIND3_DIR = corpusDir('drafts-blind3');

/**
 * Issue 30's fourth blind set, written once the third was read and tuned on, the same way (the
 * compiler, its docs, its tests and the other sets' requests unseen; the third blind set read for
 * its format and labelling conventions only), over the data-export-request and support-refunds
 * templates and a people-ops desk of its own; never run through the compiler before it was
 * committed, never tuned on, not in any suite bar.
 */
export const BLIND4_DIR = corpusDir('drafts-blind4');

/**
 * Issue 30's fifth blind set, written once the fourth was read and tuned on, the same way (the
 * compiler, its docs, its tests and the other sets' requests unseen; the fourth read for its format
 * and labelling conventions only), over the support-refunds, expense-report and oncall-escalation
 * templates (their sample events read as `keel draft` reads them) and a billing-ops desk of its own;
 * never run through the compiler before it was committed, never tuned on, not in any suite bar.
 */
export const BLIND5_DIR = corpusDir('drafts-blind5');

/**
 * The sixth blind set: written like the fifth (without seeing the compiler, its docs, its tests or
 * the other sets' requests; the fifth read for format and labels only), over the ticket-triage,
 * invoice-approval and access-request templates and a store-ops desk of its own; measured unseen
 * once before any change it prompted (docs/authoring.md), not in any suite bar.
 */
export const BLIND6_DIR = corpusDir('drafts-blind6');

/**
 * The seventh blind set: written like the sixth, over the content-moderation, data-export-request
 * and expense-report templates and a facilities desk of its own, and measured unseen once on the
 * compiler at the start of the round that added it and once at its end (docs/authoring.md).
 */
export const BLIND7_DIR = corpusDir('drafts-blind7');

/**
 * The eighth blind set: written like the seventh, over the support-refunds, oncall-escalation and
 * invoice-approval templates and a subscriptions desk of its own, and measured unseen on the
 * compiler at the start of the round that added it (docs/authoring.md).
 */
export const BLIND8_DIR = corpusDir('drafts-blind8');

/**
 * The ninth blind set: written like the eighth, over the ticket-triage, access-request and
 * expense-report templates and a shipping desk of its own, and measured unseen on the compiler at
 * the start of the round that added it (docs/authoring.md).
 */
export const BLIND9_DIR = corpusDir('drafts-blind9');

/**
 * The tenth blind set: written like the ninth, over the support-refunds, content-moderation and
 * data-export-request templates and a seller-payouts desk of its own, and measured unseen on the
 * compiler at the start of the round that added it (docs/authoring.md).
 */
export const BLIND10_DIR = corpusDir('drafts-blind10');
export const BLIND11_DIR = corpusDir('drafts-blind11');
/**
 * The twelfth blind set: written like the eleventh, over the support-refunds and access-request
 * templates and a letting agency's desk of its own, and measured unseen once (docs/authoring.md).
 */
export const BLIND12_DIR = corpusDir('drafts-blind12');
/**
 * The thirteenth blind set: written like the twelfth, over the invoice-approval and
 * content-moderation templates and a hotel front desk of its own, and measured unseen once
 * (docs/authoring.md).
 */
export const BLIND13_DIR = corpusDir('drafts-blind13');
/**
 * The fourteenth blind set: written like the thirteenth, over the expense-report and ticket-triage
 * templates and a veterinary clinic's front desk of its own, and measured unseen once
 * (docs/authoring.md).
 */
export const BLIND14_DIR = corpusDir('drafts-blind14');

/** The sample events of a template: its events/*.json. */
export function templateSamples(name: string): unknown[] {
  const dir = join(corpusDir('..'), 'templates', name, 'events');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')));
}

/**
 * The event shapes `keel draft` reads in a project made from a template once its workflows are
 * published and promoted as its README does: the samples' values and the values those workflows
 * test (`withTestedValues`: the enterprise plan of ticket-triage).
 */
function templateEvents(name: string): EventShape[] {
  const dir = join(corpusDir('..'), 'templates', name, 'workflows');
  const specs = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => parse(readFileSync(join(dir, f), 'utf8')) as TestedSpec);
  return withTestedValues(eventShapesOf(templateSamples(name)), specs);
}

/** A step as compared: a tool step's tool, args and `if`, or a choice's branches; names dropped. */
export type ExpectedStep =
  | { tool: string; args: Record<string, unknown>; if?: string }
  | { choose: { when: string; steps: ExpectedStep[] }[]; else?: ExpectedStep[] };

export interface Expected {
  readonly triggers: TriggerSpec[];
  readonly steps: ExpectedStep[];
  readonly limits: WorkflowLimits;
}

export interface CorpusCase {
  readonly file: string;
  readonly request: string;
  readonly expect?: Expected;
  readonly ask?: boolean;
  readonly why?: string;
}

export interface CorpusFile {
  readonly name: string;
  /** Written after the compiler was tuned on the other files (holdout-*.yaml). */
  readonly heldOut: boolean;
  readonly catalog: DraftCatalog;
  readonly cases: CorpusCase[];
}

export function loadCorpus(dir = CORPUS_DIR): CorpusFile[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => {
      type Doc = {
        catalog?: string;
        catalogFrom?: string;
        template?: string;
        tools?: ToolDescriptor[];
        events?: EventShape[];
        cases: Omit<CorpusCase, 'file'>[];
      };
      const read = (name: string) => parse(readFileSync(join(dir, name), 'utf8')) as Doc;
      const doc = read(f);
      // A held-out file names the file whose catalog it uses.
      const from = doc.catalogFrom === undefined ? doc : read(doc.catalogFrom);
      const tools = from.catalog === 'support-desk' ? supportDeskCatalog() : (from.tools ?? []);
      // A file over a template (`template: <name>`, no `events:`) reads the template's sample events
      // the way `keel draft` in a project made from it does: their fields and their sample values.
      const events =
        from.template !== undefined && from.events === undefined
          ? templateEvents(from.template)
          : (from.events ?? []);
      return {
        name: basename(f, '.yaml'),
        heldOut: doc.catalogFrom !== undefined,
        catalog: { tools, events },
        cases: doc.cases.map((c) => ({ ...c, file: f })),
      };
    });
}

/** Each corpus folder read once, for the tests that draft over its catalogs. */
const foldersRead = new Map<string, CorpusFile[]>();

/** The catalog of the corpus file `name` (without .yaml) in `dir`. */
export function catalogOf(dir: string, name: string): DraftCatalog {
  let files = foldersRead.get(dir);
  if (files === undefined) {
    files = loadCorpus(dir);
    foldersRead.set(dir, files);
  }
  const f = files.find((x) => x.name === name);
  if (f === undefined) throw new Error(`no corpus file ${name}.yaml in ${dir}`);
  return f.catalog;
}

/** `request` drafted over that catalog by the offline compiler, with the checks `keel draft` makes. */
export function draftOver(request: string, dir: string, name: string): Draft {
  const catalog = catalogOf(dir, name);
  return draftSpec(compileRequest(request, catalog), catalog);
}

/** `request`, drafted over that catalog, is not drafted but asked about, with a question that says `said`. */
export function assertAsks(request: string, dir: string, name: string, said: string): void {
  const d = draftOver(request, dir, name);
  assert.equal(d.publishable, false, request);
  assert.ok(
    d.questions.some((q) => q.question.includes(said)),
    `${request}: ${JSON.stringify(d.questions)}`,
  );
}

/**
 * A condition as compared: its normal form (normalize-condition.ts), so that two ways of writing
 * the same test ("a or b" and "(b or a)") compare equal and nothing else does. Text that does not
 * parse is compared as written.
 */
function sameMeaning(when: string, names: ReadonlyMap<string, string> = new Map()): string {
  const renamed = when.replace(/\bsteps\.([A-Za-z0-9_]+)\./g, (all, n: string) =>
    names.has(n) ? `steps.${names.get(n)}.` : all,
  );
  try {
    return conditionKey(normalizeCondition(parseStepCondition(renamed)));
  } catch {
    return renamed;
  }
}

/** Step names renamed by position (templates reading `steps.<name>` follow), ids and text dropped. */
export function normalise(spec: {
  triggers: readonly TriggerSpec[];
  steps: readonly unknown[];
  limits: WorkflowLimits;
}): Expected {
  const names = new Map(
    toolSteps({ steps: spec.steps } as never).map((s: StepSpec, i: number) => [s.name ?? '', `s${i + 1}`]),
  );
  const rename = (v: unknown): unknown => {
    if (typeof v === 'string')
      return v.replace(/\{\{\s*steps\.([A-Za-z0-9_]+)\./g, (all, n: string) =>
        names.has(n) ? `{{steps.${names.get(n)}.` : all,
      );
    if (Array.isArray(v)) return v.map(rename);
    if (typeof v === 'object' && v !== null)
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rename(x)]));
    return v;
  };
  return {
    triggers: spec.triggers.map((t) => ({
      event: t.event,
      ...(t.when ? { when: sameMeaning(t.when) } : {}),
    })),
    steps: spec.steps.map(function step(x: unknown): ExpectedStep {
      const s = x as {
        tool?: string;
        args?: Record<string, unknown>;
        if?: string;
        choose?: { when: string; steps: unknown[] }[];
        else?: unknown[];
      };
      if (s.choose !== undefined)
        return {
          choose: s.choose.map((b) => ({ when: sameMeaning(b.when, names), steps: b.steps.map(step) })),
          ...(s.else?.length ? { else: s.else.map(step) } : {}),
        };
      return {
        tool: s.tool as string,
        args: rename(s.args) as Record<string, unknown>,
        ...(s.if !== undefined ? { if: sameMeaning(s.if, names) } : {}),
      };
    }),
    limits: { maxSteps: spec.limits.maxSteps, maxCostUsd: spec.limits.maxCostUsd },
  };
}

export interface CaseResult {
  readonly c: CorpusCase;
  readonly draft: Draft;
  /** Spec cases: the draft is publishable and its canonical hash is the expected one. */
  readonly exact: boolean;
  /** Spec cases: expected steps the draft has at the same position, tool and arguments alike. */
  readonly stepsRight: number;
  readonly stepsExpected: number;
  /** Must-ask cases: the draft asks and is not publishable. */
  readonly asked: boolean;
  /** The draft (or its partial spec) names a tool outside the catalog. */
  readonly invented: boolean;
  /** Publishable, calls a tool that moves money, and is not what the request says (or should have asked). */
  readonly moneyMisdraft: boolean;
}

/** A case scored on the offline compiler's draft. */
export function scoreCase(c: CorpusCase, catalog: DraftCatalog): CaseResult {
  return scoreDraft(c, catalog, draftSpec(compileRequest(c.request, catalog), catalog));
}

/** A case scored on a draft, whatever compiled it (the same checks made it: `draftSpec`). */
export function scoreDraft(c: CorpusCase, catalog: DraftCatalog, draft: Draft): CaseResult {
  const got = draft.spec ?? draft.partial;
  const names = new Set(catalog.tools.map((t) => t.name));
  const used = got ? toolSteps(got).map((s) => s.tool) : [];
  const invented = used.some((t) => !names.has(t));
  const movesMoney = used.some((t) => catalog.tools.find((x) => x.name === t)?.cost?.fromArg !== undefined);
  if (c.ask) {
    const asked = !draft.publishable && draft.questions.length > 0;
    const moneyMisdraft = draft.publishable && movesMoney;
    return { c, draft, exact: false, stepsRight: 0, stepsExpected: 0, asked, invented, moneyMisdraft };
  }
  const expected = normalise(c.expect as Expected);
  const mine = got ? normalise(got) : undefined;
  const exact = draft.publishable && mine !== undefined && hashOf(mine) === hashOf(expected);
  const stepsRight = expected.steps.filter(
    (s, i) => mine?.steps[i] !== undefined && hashOf(mine.steps[i]) === hashOf(s),
  ).length;
  const moneyMisdraft = draft.publishable && movesMoney && !exact;
  return {
    c,
    draft,
    exact,
    stepsRight,
    stepsExpected: expected.steps.length,
    asked: false,
    invented,
    moneyMisdraft,
  };
}

export interface CorpusScore {
  readonly results: CaseResult[];
  readonly specCases: number;
  readonly exact: number;
  readonly askCases: number;
  readonly asked: number;
  readonly stepsRight: number;
  readonly stepsExpected: number;
  /** Spec cases: not exact, but at least one expected step right. */
  readonly partial: number;
  /** Spec cases: not publishable, for questions a person would find needless. */
  readonly needlessQuestion: number;
  /** Publishable drafts that are not the expected spec, and must-ask cases that drafted. */
  readonly wrongDraft: number;
  readonly invented: number;
  readonly moneyMisdraft: number;
}

export function scoreCorpus(files: readonly CorpusFile[] = loadCorpus()): CorpusScore {
  return tally(files.flatMap((f) => f.cases.map((c) => scoreCase(c, f.catalog))));
}

/**
 * The corpus scored on another compiler (the model-backed one): `compile` turns each request into
 * a compiled request, one at a time, and `draftSpec` checks it as it checks the offline compiler's.
 */
export async function scoreCorpusWith(
  files: readonly CorpusFile[],
  compile: (request: string, catalog: DraftCatalog) => Promise<CompiledRequest>,
): Promise<CorpusScore> {
  const results: CaseResult[] = [];
  for (const f of files)
    for (const c of f.cases)
      results.push(scoreDraft(c, f.catalog, draftSpec(await compile(c.request, f.catalog), f.catalog)));
  return tally(results);
}

function tally(results: CaseResult[]): CorpusScore {
  const spec = results.filter((r) => !r.c.ask);
  const ask = results.filter((r) => r.c.ask);
  return {
    results,
    specCases: spec.length,
    exact: spec.filter((r) => r.exact).length,
    askCases: ask.length,
    asked: ask.filter((r) => r.asked).length,
    stepsRight: spec.reduce((n, r) => n + r.stepsRight, 0),
    stepsExpected: spec.reduce((n, r) => n + r.stepsExpected, 0),
    partial: spec.filter((r) => !r.exact && r.stepsRight > 0).length,
    needlessQuestion: spec.filter((r) => !r.draft.publishable).length,
    wrongDraft: results.filter((r) => r.draft.publishable && !r.exact).length,
    invented: results.filter((r) => r.invented).length,
    moneyMisdraft: results.filter((r) => r.moneyMisdraft).length,
  };
}
