import { ErrorCode, KeelError } from '../errors.ts';

/**
 * The refusal to start a run that retention removed (docs/audit.md, "Retention"): its event was
 * handled and its effects happened, so the same id is never started again.
 */
export function retainedRunError(runId: string): KeelError {
  return new KeelError(
    ErrorCode.runTerminal,
    `run ${runId} finished and was removed by retention after its export: it is not started again`,
    { runId },
  );
}
