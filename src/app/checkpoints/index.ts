/**
 * Signed checkpoints of a tenant's runs (docs/audit.md), made and verified over a store: making one
 * (make-checkpoint.ts), verifying the chain and every head it recorded (verify-checkpoints.ts,
 * checkpointed-runs.ts), and a run directory's share of the last one (checkpoint-coverage.ts).
 */
export type { AnomalyKind, AuditAnomaly, AuditReport } from './audit-report.ts';
export { checkpointCoverage } from './checkpoint-coverage.ts';
export { headLog } from './head-streams.ts';
export { type CheckpointMade, makeCheckpoint } from './make-checkpoint.ts';
export { verifyCheckpoints } from './verify-checkpoints.ts';
