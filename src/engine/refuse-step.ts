/**
 * A step refused: `step.refused` names the check, the code and the problems (with the policy's and
 * the writ's part where they decided), and the run finishes refused with the tool's reason. Every
 * phase that refuses a step — resolving its arguments, the checks, minting a delegation, a writ's
 * shared budget, a person's denial — records it here, the same way. Nothing refused ever executes.
 */
import type { PayloadOf } from '../core/ledger/index.ts';
import type { Decision } from '../core/run/index.ts';
import type { RunWriter } from './run-writer.ts';
import type { Flow } from './walk-context.ts';

/** Records the refusal and the run's end; the walk stops there. */
export function refuseStep(
  w: RunWriter,
  step: string,
  tool: string,
  proposalId: PayloadOf<'step.refused'>['proposalId'],
  d: Decision,
): Flow {
  if (d.outcome !== 'refuse') return 'stop';
  w.add('step.refused', {
    step,
    tool,
    proposalId,
    check: d.check,
    code: d.code,
    message: d.message,
    ...(d.problems ? { problems: d.problems } : {}),
    ...(d.policy ? { policy: d.policy } : {}),
    ...(d.writ ? { writ: d.writ } : {}),
  });
  w.add('run.finished', { status: 'refused', outputs: w.state.outputs, reason: `${tool}: ${d.message}` });
  return 'stop';
}
