/**
 * The one error type of Keel and the one table of its codes.
 *
 * Expected refusals (a failed check, a denied approval) are values, never exceptions; a KeelError
 * means bad input at a boundary, a broken invariant or failed I/O. Edges map `code` to an HTTP
 * status or an exit code through single tables (`httpStatusFor`, `exitCodeFor`); nothing else
 * inspects messages. Context fields are plain data so they serialise into `--json` output.
 */

export const ErrorCode = {
  /** A value cannot be put in canonical form (NaN, -0, unsafe integer, lone surrogate, undefined...). */
  canonicalInvalid: 'canonical_invalid',
  /** A workflow spec, event, or other document failed validation. */
  specInvalid: 'spec_invalid',
  eventInvalid: 'event_invalid',
  /** A command or API call was given arguments it cannot use. */
  usage: 'usage',
  notFound: 'not_found',
  /** A published version was published again with different content. */
  versionImmutable: 'version_immutable',
  /**
   * An event named by `(source, id)` was delivered before with other content: the first delivery's
   * runs stand, this delivery started nothing and is recorded as a conflict (`details.fields` say
   * which fields differ; `keel events conflicts` lists them).
   */
  eventConflict: 'event_conflict',
  /** An append named a head that is no longer the head of the run's ledger. */
  headConflict: 'head_conflict',
  /** An approval was resolved already (approve-after-deny, double approve). */
  alreadyResolved: 'already_resolved',
  /** The run is not in a state that allows the operation (e.g. approving a run that waits for nothing). */
  runState: 'run_state',
  /** The run has finished (completed, refused, failed or cancelled): nothing can change it now. */
  runTerminal: 'run_terminal',
  /** Replay needed a recorded value or outcome the ledger does not hold; nothing was synthesised. */
  replaySourceMissing: 'replay_source_missing',
  /** Re-execution produced an entry that differs from the recorded one. */
  replayDiverged: 'replay_diverged',
  /** A stored ledger failed verification. */
  ledgerInvalid: 'ledger_invalid',
  /** A tool handler or store failed in a way Keel could not classify. */
  internal: 'internal',
  /** A tool with this name is not registered. */
  unknownTool: 'unknown_tool',
  /** The store cannot be opened or has an unexpected schema. */
  storeUnavailable: 'store_unavailable',
  /** A plan module (`*.plan.ts`) reads the clock, randomness, the host or I/O; see `keel check`. */
  determinismViolation: 'determinism_violation',
  /** A plan module could not be evaluated: it threw, ran past its step or memory limit, or exported no spec. */
  planInvalid: 'plan_invalid',
  /** A policy document failed validation; `details.problems` names each field and its problem. */
  policyInvalid: 'policy_invalid',
  /** A writ, writ request or key file is malformed (not a signature or subset failure). */
  writInvalid: 'writ_invalid',
  /**
   * A writ was refused: attenuation widened something, or a chain failed verification.
   * `details.code` is the specific writ code (writ_scope_widened, writ_signature_invalid, ...).
   */
  writRefused: 'writ_refused',
  /**
   * A run is pinned to a policy (by hash, in its root) that this process does not have: nothing is
   * judged by another policy instead, and nothing is written.
   */
  policyUnavailable: 'policy_unavailable',
  /** A read command named a store (a SQLite file) that does not exist; nothing was created. */
  storeNotFound: 'store_not_found',
  /**
   * Replay (or a replay fork) cannot run here: a tool, policy or key the run needs is missing in this
   * process. Not a divergence: the ledger was not compared, and nothing says it was tampered with.
   */
  replayUnavailable: 'replay_unavailable',
  /** An input is larger than a limit Keel enforces (size, depth, keys, string length); `details.limit` names it. */
  payloadTooLarge: 'payload_too_large',
  /**
   * A promotion's gate is not met (docs/lifecycle.md): `details.report` lists each condition, met
   * or not, with the evidence counted. A person may override it with a recorded reason.
   */
  promotionGateUnmet: 'promotion_gate_unmet',
  /** `keel test` ran and at least one expectation did not hold (the report says which). */
  testFailed: 'test_failed',
  /** The caller is authenticated but may not do this (a service key promoting a version). */
  forbidden: 'forbidden',
  /**
   * A model provider could not be asked or answered nonsense (down, timed out, refused the key, a
   * non-2xx status): failed I/O, the step is left undecided and the run can be resumed.
   */
  modelUnavailable: 'model_unavailable',
  /**
   * An MCP server a tools file names could not be reached, or failed to list its tools (down, exited,
   * timed out): failed I/O; `details.server` (and `details.tool`) name it. A step whose call hits it fails.
   */
  mcpServerUnavailable: 'mcp_server_unavailable',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export type ErrorDetails = Readonly<Record<string, unknown>>;

export class KeelError extends Error {
  override readonly name = 'KeelError';
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.details = details;
  }

  /** Plain, stack-free form for `--json` output and HTTP bodies. */
  toJSON(): { error: ErrorCode; message: string; details: ErrorDetails } {
    return { error: this.code, message: this.message, details: this.details };
  }
}

export function isKeelError(e: unknown): e is KeelError {
  return e instanceof KeelError;
}

/** Normalises anything thrown into an Error, so boundaries can log and map it uniformly. */
export function ensureError(e: unknown): Error {
  if (e instanceof Error) return e;
  return new Error(typeof e === 'string' ? e : `non-error thrown: ${String(e)}`);
}
