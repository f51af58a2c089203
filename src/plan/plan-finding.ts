/**
 * Findings of the static determinism check: where, what, and one line a person can act on.
 *
 * Owns the finding shape (also the `--json` shape), its one-line format, the order findings are
 * reported in, and the single `determinism_violation` error that carries them all. Never decides
 * what is a finding.
 */
import { ErrorCode, KeelError } from '../core/errors.ts';

export interface PlanFinding {
  /** The path as it was given to the check. */
  readonly file: string;
  /** 1-based line and column of the offending expression. */
  readonly line: number;
  readonly column: number;
  /** The API or construct: `Date.now`, `Math.random`, `import "node:fs"`, `Math as a value`. */
  readonly what: string;
  /** The whole explanation: `Date.now is not allowed in a plan module: it reads the host clock ...`. */
  readonly message: string;
}

/** `plans/refund.plan.ts:12:5: Date.now is not allowed in a plan module: ...`. */
export function formatFinding(f: PlanFinding): string {
  return `${f.file}:${f.line}:${f.column}: ${f.message}`;
}

export function compareFindings(a: PlanFinding, b: PlanFinding): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.line - b.line || a.column - b.column || (a.what < b.what ? -1 : a.what > b.what ? 1 : 0);
}

/** Thrown when a plan module is loaded or published and the check found anything. */
export function determinismError(findings: readonly PlanFinding[]): KeelError {
  const first = findings[0];
  const head = first ? formatFinding(first) : 'the plan module failed the determinism check';
  const more = findings.length > 1 ? ` (+${findings.length - 1} more)` : '';
  return new KeelError(ErrorCode.determinismViolation, `${head}${more}`, { findings: [...findings] });
}
