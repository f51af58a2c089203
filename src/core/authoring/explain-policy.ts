/**
 * The tenant's policy read against a spec's steps, for `keel explain`: per step, what the policy
 * does with its calls (allowed, refused, or waits for a person), by which rule or by the default,
 * and which rules change that under a condition (a `when`, or the version's status). The steps a
 * policy may refuse or hold for a person are also risks.
 *
 * Pure: it reads the policy's rules as data (rulesForTool) and never decides a call.
 */
import { type Policy, type PolicyOutcome, RANK, rulesForTool } from '../policy/index.ts';
import { toolSteps } from '../spec/flow-steps.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import type { ToolDescriptor } from '../tools/tool-descriptor.ts';

const DOES: Readonly<Record<PolicyOutcome, string>> = {
  allow: 'allowed',
  deny: 'refused',
  require_approval: "waits for a person's approval",
};

export interface PolicyReading {
  /** A line on the policy, then one per step whose tool is in the catalog. */
  readonly lines: string[];
  readonly risks: string[];
}

export function readPolicy(
  spec: WorkflowSpec,
  byName: ReadonlyMap<string, ToolDescriptor>,
  policy: Policy,
  tenant: string,
): PolicyReading {
  const n = policy.rules.length;
  const lines = [
    `Policy ${policy.hash.slice(7, 19)}… (${n} rule${n === 1 ? '' : 's'}): a call no rule matches is ${DOES[policy.default]} (default ${policy.default}).`,
  ];
  const risks: string[] = [];
  toolSteps(spec).forEach((s, i) => {
    const tool = byName.get(s.tool);
    if (!tool) return;
    const rules = rulesForTool(policy, tool, tenant);
    let base: (typeof rules)[number] | undefined;
    for (const r of rules)
      if (r.condition === undefined && (!base || RANK[r.rule.outcome] > RANK[base.rule.outcome])) base = r;
    const outcome = base?.rule.outcome ?? policy.default;
    const by = base ? `rule ${base.rule.id}` : "the policy's default";
    // A conditional rule changes the outcome when it ranks higher than the fixed one, or, with no
    // fixed rule, whenever its outcome is not the default's (any match replaces the default).
    const changes = rules.filter(
      (r) =>
        r.condition !== undefined &&
        (base ? RANK[r.rule.outcome] > RANK[base.rule.outcome] : r.rule.outcome !== policy.default),
    );
    const subject = `${s.name} (${s.tool})`;
    lines.push(
      `${i + 1}. ${subject}: ${DOES[outcome]} (${by})${changes
        .map((r) => `; ${r.condition}, ${DOES[r.rule.outcome]} (rule ${r.rule.id})`)
        .join('')}.`,
    );
    if (outcome === 'deny')
      risks.push(`${subject} is refused by the tenant's policy (${by}): a run cannot get past it.`);
    if (outcome === 'require_approval')
      risks.push(`${subject} waits for a person's approval: the tenant's policy asks (${by}).`);
    for (const r of changes)
      if (r.rule.outcome !== 'allow')
        risks.push(
          `${subject}: ${r.condition}, it ${r.rule.outcome === 'deny' ? 'is refused' : DOES[r.rule.outcome]} (policy rule ${r.rule.id}).`,
        );
  });
  return { lines, risks };
}
