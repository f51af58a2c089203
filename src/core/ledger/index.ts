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
export {
  type CheckName,
  type EntryKind,
  type EventRecord,
  isEntryKind,
  type PayloadOf,
  type Payloads,
  payloadProblem,
  ROOT_KINDS,
  type RunStatus,
  TERMINAL_STATUSES,
  type TerminalStatus,
} from './entry-kinds.ts';
export {
  LedgerVerifier,
  type VerifyFailure,
  type VerifyFailureCode,
  type VerifyResult,
  verifyLedger,
} from './verify-ledger.ts';
