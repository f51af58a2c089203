/**
 * The checks every proposal passes before anything runs, in order: schema validation, the
 * step limit, the spend cap, then the destructive-tool guardrail. The result is a value: allow,
 * refuse (naming the check and why) or require an approval. This function cannot execute a tool;
 * the engine records its decision before it acts on it.
 */
import type { CheckName } from '../ledger/index.ts';
import { formatCents } from '../money.ts';
import {
  type ArgProblem,
  callCost,
  formatArgProblem,
  type ToolDescriptor,
  validateArgs,
} from '../tools/index.ts';

export type Decision =
  | { readonly outcome: 'allow'; readonly costCents: number }
  | {
      readonly outcome: 'refuse';
      readonly check: CheckName;
      readonly code: string;
      readonly message: string;
      readonly problems?: readonly ArgProblem[];
    }
  | {
      readonly outcome: 'require_approval';
      readonly costCents: number;
      readonly reason: string;
      readonly channel: string;
    };

export interface ProposalContext {
  readonly tool: ToolDescriptor;
  readonly args: Record<string, unknown>;
  readonly stepsTaken: number;
  readonly maxSteps: number;
  readonly spentCents: number;
  readonly capCents: number;
  /** Status of the pinned version: AUTONOMOUS versions run destructive tools without a person. */
  readonly versionStatus: string;
  /** True when a person already approved exactly this proposal. */
  readonly approved: boolean;
}

export function checkProposal(c: ProposalContext): Decision {
  const { tool, args } = c;
  const problems = validateArgs(tool, args);
  if (problems.length > 0) {
    return {
      outcome: 'refuse',
      check: 'validate',
      code: 'invalid_arguments',
      message: problems.map(formatArgProblem).join('; '),
      problems,
    };
  }
  if (c.stepsTaken + 1 > c.maxSteps) {
    return {
      outcome: 'refuse',
      check: 'max_steps',
      code: 'max_steps_exceeded',
      message: `this would be step ${c.stepsTaken + 1}, over the limit of ${c.maxSteps} steps`,
    };
  }
  const { totalCents: cost, fixedCents, argCents } = callCost(tool, args);
  if (c.spentCents + cost > c.capCents) {
    const from = tool.cost?.fromArg;
    const arg =
      from !== undefined && typeof args[from] === 'number' ? `${from} ${formatCents(argCents)}` : undefined;
    const what =
      arg === undefined
        ? `cost ${formatCents(cost)}`
        : fixedCents === 0
          ? arg
          : `cost ${formatCents(cost)} (${arg} plus a fixed ${formatCents(fixedCents)})`;
    const already = c.spentCents > 0 ? ` plus ${formatCents(c.spentCents)} already spent` : '';
    return {
      outcome: 'refuse',
      check: 'spend_cap',
      code: 'spend_cap_exceeded',
      message: `${what}${already} exceeds the spend cap of ${formatCents(c.capCents)}`,
    };
  }
  if (tool.destructive && c.versionStatus !== 'AUTONOMOUS' && !c.approved) {
    return {
      outcome: 'require_approval',
      costCents: cost,
      reason: `${tool.name} is destructive and this version is ${c.versionStatus}, not AUTONOMOUS`,
      channel: 'cli',
    };
  }
  return { outcome: 'allow', costCents: cost };
}
