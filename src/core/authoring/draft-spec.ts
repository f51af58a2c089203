/**
 * A draft: a compiled spec (offline or from a model) put through the spec's own validation against
 * the same tool catalog, read back in plain language, and hashed. Whatever produced it, a draft
 * either validates or lists questions: a validation problem becomes a question naming the field.
 *
 * Pure. Publishing is not here: a draft is published as DRAFT, and only once a person confirms it.
 */
import type { Digest } from '../canonical/index.ts';
import { isKeelError } from '../errors.ts';
import { toolSteps } from '../spec/flow-steps.ts';
import { specHash } from '../spec/spec-hash.ts';
import type { SpecProblem } from '../spec/spec-problem.ts';
import { validateSpec } from '../spec/validate-spec.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import type { CompiledRequest, DraftCatalog, DraftQuestion } from './compiled-request.ts';
import { draftSafety } from './draft-safety.ts';
import { explainSpec, type ReadBack } from './explain-spec.ts';
import { refusedTriggerValues } from './refused-values.ts';

export interface Draft {
  readonly spec?: WorkflowSpec;
  /** What the compiler built when it does not validate yet (questions say what is missing). */
  readonly partial?: WorkflowSpec;
  /** The spec's hash (as `keel publish` would record it); what a confirmation must name. */
  readonly specHash?: Digest;
  readonly readBack?: ReadBack;
  readonly questions: readonly DraftQuestion[];
  readonly notes: readonly string[];
  /** True when there is a valid spec and no question: the only drafts that may be published. */
  readonly publishable: boolean;
}

/** Validates a compiled request against `catalog` and reads it back. */
export function draftSpec(compiled: CompiledRequest, catalog: DraftCatalog): Draft {
  const questions = [...compiled.questions];
  let spec: WorkflowSpec | undefined;
  if (compiled.spec !== undefined) {
    const names = new Set(catalog.tools.map((t) => t.name));
    // Belt and braces: whatever produced it, a draft never names a tool outside the catalog.
    for (const s of compiled.spec.steps as unknown[]) {
      const tool = (s as { tool?: unknown } | null)?.tool;
      const name = (s as { name?: unknown } | null)?.name;
      if (
        typeof tool !== 'string' ||
        names.has(tool) ||
        questions.some((q) => q.question.includes(JSON.stringify(tool)))
      )
        continue;
      questions.push({
        about: `steps: ${String(name)}`,
        question: `${tool} is not in the tool catalog. Which tool should ${String(name)} use?`,
      });
    }
    try {
      spec = validateSpec(compiled.spec, '(draft)', {
        knownTool: (n) => names.has(n),
        describeTool: (n) => catalog.tools.find((t) => t.name === n),
      });
    } catch (e) {
      if (!isKeelError(e)) throw e;
      const problems = (e.details.problems as SpecProblem[] | undefined) ?? [];
      const steps = toolSteps(compiled.spec);
      for (const p of problems) {
        // An argument the compiler asked about already is missing, of course: one question, not two.
        const arg = /^steps\[([0-9]+)\]\.args\.([A-Za-z0-9_]+)$/.exec(p.field);
        const tool = arg ? steps[Number(arg[1])]?.tool : undefined;
        if (arg && questions.some((q) => q.about === `args: ${tool}.${arg[2]}`)) continue;
        questions.push({ about: p.field, question: `${p.field}: ${p.message}. What should it be?` });
      }
      if (problems.length === 0)
        questions.push({ about: 'spec', question: `${e.message}. What should change?` });
    }
  }
  if (spec === undefined)
    return {
      // Shown for review only when it names nothing outside the catalog.
      ...(compiled.spec &&
      (compiled.spec.steps as unknown[]).every((x) =>
        catalog.tools.some((t) => t.name === (x as { tool?: unknown } | null)?.tool),
      )
        ? { partial: compiled.spec }
        : {}),
      questions,
      notes: compiled.notes,
      publishable: false,
    };
  const base = explainSpec(spec, catalog.tools, catalog.policy);
  const assumed = compiled.assumptions ?? [];
  // What the compiler assumed is read back with the rest, so the person confirming sees it.
  const readBack: ReadBack = assumed.length
    ? { ...base, assumed, text: `${base.text}\nAssumed:\n${assumed.map((a) => `  - ${a}`).join('\n')}` }
    : base;
  // Whatever compiled it, a draft passes the safety checks before it may be published.
  for (const q of refusedTriggerValues(spec, catalog.tools)) questions.push(q);
  if (compiled.request !== undefined)
    for (const q of draftSafety(spec, compiled.request, catalog, readBack.text, assumed))
      if (!questions.some((x) => x.question === q.question)) questions.push(q);
  return {
    spec,
    specHash: specHash(spec),
    readBack,
    questions,
    notes: compiled.notes,
    publishable: questions.length === 0,
  };
}
