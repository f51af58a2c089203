export {
  BLOB_ENTRY_VERSION,
  BLOB_THRESHOLD,
  type Blob,
  BlobProblem,
  blobMap,
  blobRefs,
  externalize,
  resolveBlobs,
} from './blobs.ts';
export { BRANCH_SHAPES, type BranchPayloads, type ChosenBranch } from './branch-entries.ts';
export {
  chainEntry,
  decodeEntry,
  decodePayload,
  ENTRY_VERSION,
  type Entry,
  type Envelope,
  entryHash,
  envelopeBytes,
  type Head,
  payloadOf,
  type StoredEntry,
} from './entry.ts';
export { ACTOR_FIELDS, CANCELLED_BY, CODE_KINDS, hasCode, namesActor } from './entry-actor.ts';
export {
  ENTRY_KINDS,
  type EntryKind,
  isEntryKind,
  type ModelOutageSuspension,
  type OutcomeUnknownSuspension,
  type PayloadOf,
  type Payloads,
  payloadProblem,
  ROOT_KINDS,
} from './entry-kinds.ts';
export { LOOP_SHAPES, type LoopPayloads } from './loop-entries.ts';
export {
  type EventRecord,
  RUN_MODES,
  RUN_STATUSES,
  type RunMode,
  type RunStatus,
  type RunWrit,
  type SplitEntry,
  TERMINAL_STATUSES,
  type TerminalStatus,
  type TestRef,
} from './run-entries.ts';
export { DRAWN_SOURCES, type DrawnSource, type ModelCallEntry } from './source-entries.ts';
export type {
  BudgetEntry,
  CheckName,
  PolicyEntry,
  StepMode,
  WritEntry,
} from './step-entries.ts';
export {
  LedgerVerifier,
  type VerifyFailure,
  type VerifyFailureCode,
  type VerifyResult,
  verifiedEntries,
  verifyLedger,
} from './verify-ledger.ts';
export {
  WAIT_END_REASONS,
  WAIT_KINDS,
  type WaitEndReason,
  type WaitKind,
  type WaitPayloads,
} from './wait-entries.ts';
