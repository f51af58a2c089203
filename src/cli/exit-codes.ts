/**
 * The one table from error codes to process exit codes. Scripts can rely on these numbers.
 */
import { type ErrorCode, isKeelError } from '../core/errors.ts';

export const EXIT = {
  ok: 0,
  internal: 1,
  usage: 2,
  notFound: 3,
  conflict: 4,
  verificationFailed: 5,
  storeUnavailable: 6,
  determinismViolation: 7,
  /** A writ was refused: attenuation widened it, or its chain or signature did not verify. */
  writRefused: 8,
  /** Replay cannot run here: a tool, policy or key the run needs is missing (not a divergence). */
  replayUnavailable: 9,
  /** The evidence does not hold: a test failed, or a promotion's gate is not met. */
  evidenceUnmet: 10,
} as const;

const TABLE: Record<ErrorCode, number> = {
  canonical_invalid: EXIT.usage,
  spec_invalid: EXIT.usage,
  event_invalid: EXIT.usage,
  usage: EXIT.usage,
  unknown_tool: EXIT.usage,
  not_found: EXIT.notFound,
  version_immutable: EXIT.conflict,
  event_conflict: EXIT.conflict,
  head_conflict: EXIT.conflict,
  already_resolved: EXIT.conflict,
  run_state: EXIT.conflict,
  run_terminal: EXIT.conflict,
  ledger_invalid: EXIT.verificationFailed,
  replay_diverged: EXIT.verificationFailed,
  replay_source_missing: EXIT.verificationFailed,
  store_unavailable: EXIT.storeUnavailable,
  determinism_violation: EXIT.determinismViolation,
  plan_invalid: EXIT.usage,
  policy_invalid: EXIT.usage,
  writ_invalid: EXIT.usage,
  writ_refused: EXIT.writRefused,
  policy_unavailable: EXIT.usage,
  internal: EXIT.internal,
  store_not_found: EXIT.storeUnavailable,
  replay_unavailable: EXIT.replayUnavailable,
  payload_too_large: EXIT.usage,
  promotion_gate_unmet: EXIT.evidenceUnmet,
  test_failed: EXIT.evidenceUnmet,
  forbidden: EXIT.conflict,
  model_unavailable: EXIT.storeUnavailable,
  mcp_server_unavailable: EXIT.storeUnavailable,
};

export function exitCodeFor(e: unknown): number {
  return isKeelError(e) ? TABLE[e.code] : EXIT.internal;
}
