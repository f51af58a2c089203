/**
 * What Keel knows about a tool before it ever runs: name, argument schema, flags and cost.
 *
 * A descriptor is inert data; the handler that performs the effect lives behind the ToolInvoker
 * port. Checks (schema, guardrails) read only descriptors, so nothing here can execute anything.
 */
import { ErrorCode, KeelError } from '../errors.ts';

export const TOOL_EFFECTS = ['read', 'write', 'external'] as const;
export type ToolEffect = (typeof TOOL_EFFECTS)[number];

/** A JSON Schema (draft 2020-12) object schema. */
export type JsonSchema = { readonly [k: string]: unknown };

/**
 * Cost of one call: a fixed amount, plus (for tools that move money) the value of one argument,
 * plus the USD value at a field path of the call's result (`fromResult`, e.g. "usage.cost_usd"):
 * known only once the call returned, it counts with the step's completion, not before the call.
 */
export interface ToolCost {
  readonly fixedUsd?: number;
  readonly fromArg?: string;
  readonly fromResult?: string;
}

export interface ToolDescriptor {
  readonly name: string;
  readonly description: string;
  readonly args: JsonSchema;
  readonly destructive: boolean;
  readonly effect: ToolEffect;
  readonly idempotent: boolean;
  readonly scopes: readonly string[];
  readonly cost?: ToolCost;
  /** Postcondition: a JSON Schema the tool's output must satisfy before the step can complete. */
  readonly result?: JsonSchema;
  /**
   * `always`: the tool is an approval gate — every proposal of it waits for a person, whatever
   * the version's status, unless a person already approved exactly that proposal.
   */
  readonly approval?: ToolApproval;
}

export const TOOL_APPROVALS = ['always'] as const;
export type ToolApproval = (typeof TOOL_APPROVALS)[number];

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;

/** Checks a descriptor's own shape, so a misdeclared tool fails at registration, not mid-run. */
export function assertToolDescriptor(d: ToolDescriptor): void {
  const bad = (field: string, problem: string): never => {
    throw new KeelError(ErrorCode.usage, `tool ${JSON.stringify(d?.name)}: ${field}: ${problem}`, {
      tool: d?.name,
      field,
      problem,
    });
  };
  if (typeof d?.name !== 'string' || !NAME_RE.test(d.name))
    bad('name', 'expected a name like "issue_refund"');
  if (typeof d.description !== 'string') bad('description', 'expected a string');
  if (typeof d.args !== 'object' || d.args === null || d.args.type !== 'object') {
    bad('args', 'expected a JSON Schema with type "object"');
  }
  if (typeof d.destructive !== 'boolean') bad('destructive', 'expected true or false');
  if (!TOOL_EFFECTS.includes(d.effect)) bad('effect', `expected one of ${TOOL_EFFECTS.join(', ')}`);
  if (typeof d.idempotent !== 'boolean') bad('idempotent', 'expected true or false');
  if (!Array.isArray(d.scopes) || d.scopes.some((s) => typeof s !== 'string'))
    bad('scopes', 'expected strings');
  if (d.approval !== undefined && !TOOL_APPROVALS.includes(d.approval))
    bad('approval', `expected ${TOOL_APPROVALS.map((a) => JSON.stringify(a)).join(' or ')} or nothing`);
  const fixed = d.cost?.fixedUsd;
  if (fixed !== undefined && !(Number.isFinite(fixed) && fixed >= 0))
    bad('cost.fixedUsd', 'expected a number >= 0');
  const fromResult = d.cost?.fromResult;
  if (fromResult !== undefined && (typeof fromResult !== 'string' || fromResult.length === 0))
    bad('cost.fromResult', 'expected a field path like "usage.cost_usd"');
}
