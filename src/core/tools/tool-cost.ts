/**
 * The cost of one proposed call, in integer cents: the tool's fixed cost plus, for tools that move
 * money, the USD value of the named argument. Money is integer cents everywhere in the ledger.
 */
import { costCentsOf, MAX_USD } from '../money.ts';
import type { ToolDescriptor } from './tool-descriptor.ts';
import type { ArgProblem } from './validate-args.ts';

export interface CallCost {
  readonly totalCents: number;
  readonly fixedCents: number;
  /** The part that comes from the argument named by `cost.fromArg`, when there is one. */
  readonly argCents: number;
}

/**
 * Why a call's cost cannot be judged, or undefined: the argument `cost.fromArg` names is missing,
 * not a finite number, or larger than any amount Keel counts exactly. Such a call is refused
 * before it runs, never counted as free.
 */
export function costArgProblem(
  tool: ToolDescriptor,
  args: Readonly<Record<string, unknown>>,
): ArgProblem | undefined {
  const from = tool.cost?.fromArg;
  if (from === undefined) return undefined;
  const v = Object.hasOwn(args, from) ? args[from] : undefined;
  const expected = `a USD amount (the cost of ${tool.name})`;
  if (v === undefined) return { field: from, problem: 'missing', expected, got: 'nothing' };
  if (typeof v !== 'number' || !Number.isFinite(v))
    return {
      field: from,
      problem: 'type_mismatch',
      expected,
      got: typeof v === 'number' ? `number ${v}` : typeof v === 'object' ? 'object' : `${typeof v}`,
    };
  if (Math.abs(v) > MAX_USD)
    return { field: from, problem: 'out_of_range', expected: `at most ${MAX_USD} USD`, got: `number ${v}` };
  return undefined;
}

export function callCost(tool: ToolDescriptor, args: Readonly<Record<string, unknown>>): CallCost {
  const fixedCents = tool.cost?.fixedUsd ? costCentsOf(tool.cost.fixedUsd) : 0;
  const from = tool.cost?.fromArg;
  const v = from === undefined ? undefined : args[from];
  const argCents = typeof v === 'number' && Number.isFinite(v) ? costCentsOf(v) : 0;
  return { totalCents: fixedCents + argCents, fixedCents, argCents };
}

export function costCents(tool: ToolDescriptor, args: Readonly<Record<string, unknown>>): number {
  return callCost(tool, args).totalCents;
}

/** The value at a dotted field path of a result; undefined where the path does not lead. */
function resultAmount(path: string, output: unknown): unknown {
  let v: unknown = output;
  for (const s of path.split('.')) {
    if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.hasOwn(v, s)) return undefined;
    v = (v as Record<string, unknown>)[s];
  }
  return v;
}

const isResultAmount = (v: unknown): v is number =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= MAX_USD;

/**
 * Why a call's result does not say what the call cost, or undefined: a tool that declares
 * `cost.fromResult` promises a USD amount (a number from 0 to MAX_USD) at that path, a
 * postcondition of every call, so a missing or misspelt amount can never make a call free.
 */
export function resultCostProblem(tool: ToolDescriptor, output: unknown): string | undefined {
  const path = tool.cost?.fromResult;
  if (path === undefined) return undefined;
  const v = resultAmount(path, output);
  if (isResultAmount(v)) return undefined;
  const got = v === undefined ? 'nothing' : typeof v === 'number' ? `number ${v}` : typeof v;
  return `output ${path}: expected the call's cost, a USD amount >= 0 (cost.fromResult), got ${got}`;
}

/**
 * The cost a call's result declares (`cost.fromResult`: a dotted field path to a USD amount), in
 * integer cents (a third decimal rounds up, so a cap is never under-counted); 0 when the tool
 * declares none, or when the amount is not there (resultCostProblem: the step fails then).
 */
export function resultCostCents(tool: ToolDescriptor, output: unknown): number {
  const path = tool.cost?.fromResult;
  if (path === undefined) return 0;
  const v = resultAmount(path, output);
  return isResultAmount(v) ? costCentsOf(v) : 0;
}
