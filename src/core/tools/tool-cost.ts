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

/**
 * The cost a call's result declares (`cost.fromResult`: a dotted field path to a USD amount), in
 * integer cents; 0 when the tool declares none or the field is not a finite number >= 0.
 */
export function resultCostCents(tool: ToolDescriptor, output: unknown): number {
  const path = tool.cost?.fromResult;
  if (path === undefined) return 0;
  let v: unknown = output;
  for (const s of path.split('.')) {
    if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.hasOwn(v, s)) return 0;
    v = (v as Record<string, unknown>)[s];
  }
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? costCentsOf(v) : 0;
}
