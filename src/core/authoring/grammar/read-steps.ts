/**
 * The steps part of the grammar: each action clause (read-clauses.ts) becomes one step — its tool
 * (map-tool.ts), a name from the word that names the tool's action ("process the refund" ->
 * refund), its arguments (fill-args.ts) — in the order the clauses run; the same tool twice is one
 * step. Approvals are read here too: a destructive tool or an approval gate waits for a person by
 * itself (a note says so); any other tool cannot be made to wait by a spec (a question).
 *
 * New step kinds (waits, branches, delegations) become steps here, from the clauses that name them.
 */
import type { StepSpec } from '../../spec/workflow-spec.ts';
import type { ToolDescriptor } from '../../tools/tool-descriptor.ts';
import { ACTION_GROUPS, FILLER, groupOf, lemmas } from '../request-words.ts';
import { fillArgs } from './fill-args.ts';
import { mapTool, toolWords } from './map-tool.ts';
import type { Clause } from './read-clauses.ts';
import type { RequestContext } from './request-context.ts';

/** A step of the draft with the tool it calls, and whether the request asked for an approval. */
export interface DraftStep {
  step: StepSpec;
  tool: ToolDescriptor;
  approval: boolean;
}

const NO_APPROVAL =
  /\b(?:without (?:asking|approval|waiting)|no approval|don't ask|do not ask|no need to ask)\b/;

/**
 * The steps of `clauses`, their arguments read against the trigger `event`; then the notes and
 * questions their approvals raise (`lower`: the whole request, for "without asking").
 */
export function readSteps(
  clauses: readonly Clause[],
  event: string | undefined,
  lower: string,
  ctx: RequestContext,
): DraftStep[] {
  const steps: DraftStep[] = [];
  for (const c of clauses) {
    const tool = mapTool(c, ctx);
    if (!tool) continue;
    const existing = steps.find((s) => s.tool.name === tool.name);
    if (existing && c.approval) {
      existing.approval = true;
      continue;
    }
    const args = fillArgs(c, tool, event, ctx);
    steps.push({
      step: {
        name: stepName(
          c,
          tool,
          steps.map((s) => s.step.name),
        ),
        tool: tool.name,
        args,
      },
      tool,
      approval: c.approval,
    });
  }
  for (const s of steps) if (s.approval) checkApproval(s.step, s.tool, ctx);
  if (NO_APPROVAL.test(lower))
    for (const s of steps)
      if (s.tool.destructive)
        ctx.notes.push(
          `${s.tool.name} is destructive: it waits for a person's approval until the version is promoted to AUTONOMOUS; a draft cannot skip that.`,
        );
  return steps;
}

function stepName(c: Clause, tool: ToolDescriptor, taken: readonly string[]): string {
  const content = c.text.split(/[^a-z0-9_]+/).filter((t) => t && !FILLER.has(t) && !/^q[0-9]+$/.test(t));
  // The first word that names the tool's action ("process the refund" -> refund), else the tool's name.
  const named = content
    .map(
      (w) =>
        lemmas(w)
          .map((l) => groupOf(ACTION_GROUPS, l))
          .find((g) => g !== undefined)?.[0],
    )
    .find((g) => g !== undefined && toolWords(tool).all.has(g));
  let base = named ?? tool.name.replace(/[^A-Za-z0-9_]/g, '_');
  if (!/^[A-Za-z_]/.test(base)) base = `step_${base}`;
  let name = base;
  for (let i = 2; taken.includes(name); i++) name = `${base}_${i}`;
  return name;
}

function checkApproval(step: StepSpec, tool: ToolDescriptor, ctx: RequestContext): void {
  if (tool.destructive || tool.approval === 'always') {
    ctx.notes.push(
      tool.approval === 'always'
        ? `${step.name} (${tool.name}) always waits for a person's approval: the tool is an approval gate.`
        : `${step.name} (${tool.name}) waits for a person's approval: the tool is destructive, and a version that is not AUTONOMOUS asks before every call.`,
    );
    return;
  }
  ctx.questions.push({
    about: `steps: ${step.name}`,
    question: `${tool.name} is not destructive, so this spec cannot make it wait for approval; a tenant policy rule can (match: {tool: ${tool.name}}, outcome: require_approval). Keep the step without approval, or leave it out?`,
  });
}
