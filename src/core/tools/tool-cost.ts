/**
 * The cost of one proposed call, in integer cents: the tool's fixed cost plus, for tools that move
 * money, the USD value of the named argument. Money is integer cents everywhere in the ledger.
 */
import { costCentsOf } from '../money.ts';
import type { ToolDescriptor } from './tool-descriptor.ts';

export interface CallCost {
  readonly totalCents: number;
  readonly fixedCents: number;
  /** The part that comes from the argument named by `cost.fromArg`, when there is one. */
  readonly argCents: number;
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
