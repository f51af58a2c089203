/**
 * How cautiously Keel treats an MCP server's tool: its flags from the server's annotations
 * (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`, with the MCP defaults
 * when a hint is absent), and the tools file's overrides, which may only ever add caution.
 *
 * Owns the caution order of each flag and the merge. Pure; an override toward less caution is
 * never applied: it is a problem naming the field, returned as a value.
 */
import { TOOL_EFFECTS, type ToolApproval, type ToolCost, type ToolEffect } from '../tools/index.ts';

/** The flags of a tool that decide how cautiously it is treated. */
export interface CautionFlags {
  readonly effect: ToolEffect;
  readonly destructive: boolean;
  readonly idempotent: boolean;
  readonly approval?: ToolApproval;
}

/** What a tools file may set on an MCP tool: any flag, each only toward more caution. */
export type CautionOverride = Partial<CautionFlags>;

/**
 * A tools file's override of one MCP tool: caution flags, and a cost (an MCP server declares
 * none, so a cost only ever adds to what a call is judged to spend).
 */
export type McpToolOverride = CautionOverride & { readonly cost?: ToolCost };

export const CAUTION_FIELDS = ['effect', 'destructive', 'idempotent', 'approval'] as const;
export type CautionField = (typeof CAUTION_FIELDS)[number];

/** The MCP annotations Keel reads (the rest are ignored). */
export interface McpAnnotations {
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/**
 * A tool's flags from its annotations. MCP's defaults hold where a hint is absent: not read-only,
 * destructive, not idempotent, open world. A read-only tool reads (and is safe to call again);
 * otherwise it writes to its own world (`openWorldHint: false`) or acts on the outside one. A
 * tool that says it is both read-only and destructive (`destructiveHint: true`) contradicts
 * itself, and is taken at its more cautious word: not read-only.
 */
export function cautionFromAnnotations(a: McpAnnotations | undefined): CautionFlags {
  if (a?.readOnlyHint === true && a.destructiveHint !== true)
    return { effect: 'read', destructive: false, idempotent: true };
  return {
    effect: a?.openWorldHint === false ? 'write' : 'external',
    destructive: a?.destructiveHint !== false,
    idempotent: a?.idempotentHint === true,
  };
}

/** How cautious a flag's value is: higher is more cautious. */
export function cautionRank(field: CautionField, value: unknown): number {
  switch (field) {
    case 'effect':
      return TOOL_EFFECTS.indexOf(value as ToolEffect);
    case 'destructive':
      return value === true ? 1 : 0;
    case 'idempotent':
      return value === false ? 1 : 0;
    case 'approval':
      return value === 'always' ? 1 : 0;
  }
}

export interface CautionProblem {
  readonly field: CautionField;
  readonly from: unknown;
  readonly to: unknown;
}

export type CautionMerge =
  | { readonly ok: true; readonly flags: CautionFlags }
  | { readonly ok: false; readonly problems: readonly CautionProblem[] };

/**
 * The flags with the override applied, or the fields where the override would lower caution
 * (none of it is applied then). The merged flags are never less cautious than either side.
 */
export function mergeCaution(base: CautionFlags, override: CautionOverride): CautionMerge {
  const problems: CautionProblem[] = [];
  for (const field of CAUTION_FIELDS) {
    if (!(field in override) || override[field] === undefined) continue;
    if (cautionRank(field, override[field]) < cautionRank(field, base[field]))
      problems.push({ field, from: base[field] ?? null, to: override[field] });
  }
  if (problems.length > 0) return { ok: false, problems };
  const flags: Record<string, unknown> = { ...base };
  for (const field of CAUTION_FIELDS) {
    const v = override[field];
    if (v !== undefined) flags[field] = v;
  }
  return { ok: true, flags: flags as unknown as CautionFlags };
}
