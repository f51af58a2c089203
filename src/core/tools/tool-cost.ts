/**
 * The cost of one proposed call, in integer cents: the tool's fixed cost plus, for tools that move
 * money, the USD value of the named argument. Money is integer cents everywhere in the ledger.
 */
import type { ToolDescriptor } from './tool-descriptor.ts';

/** Exact for amounts with at most two decimals (0.29 -> 29); rounds half away from zero beyond that. */
export function usdToCents(usd: number): number {
  return Math.round(usd * 100 + (usd >= 0 ? 1e-9 : -1e-9));
}

export function costCents(tool: ToolDescriptor, args: Readonly<Record<string, unknown>>): number {
  let cents = tool.cost?.fixedUsd ? usdToCents(tool.cost.fixedUsd) : 0;
  const from = tool.cost?.fromArg;
  if (from !== undefined) {
    const v = args[from];
    if (typeof v === 'number' && Number.isFinite(v)) cents += usdToCents(Math.abs(v));
  }
  return cents;
}

export function formatCents(cents: number): string {
  return cents % 100 === 0 ? String(cents / 100) : (cents / 100).toFixed(2);
}
