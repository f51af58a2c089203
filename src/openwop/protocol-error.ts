/**
 * An OpenWOP refusal that has no Keel error code of its own (validation_error, run_terminal,
 * fork_point_invalid, ...): the server maps it and KeelError codes to statuses through one table.
 */
export class ProtocolError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown>;
  constructor(code: string, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.code = code;
    this.details = details;
  }
}
