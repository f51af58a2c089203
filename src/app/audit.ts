/**
 * The audit surface's query (`keel.audit`): ledger entries across a tenant's runs, filtered
 * exactly by run, workflow, kind, actor, refusal code and time, a page at a time, and their counts
 * by kind. It checks every filter (a bad one is a usage error naming its field, before any read),
 * normalises times to the clock's text (instantBound) and decodes each payload; what matches is
 * the store's (Ledger.queryEntries), who acted is core/ledger/entry-actor.ts's definition. It
 * never reads another tenant's entries, and never changes anything.
 */
import { ErrorCode, KeelError } from '../core/errors.ts';
import { requireInstantBound } from '../core/instant.ts';
import { decodePayload, ENTRY_KINDS, type EntryKind, isEntryKind } from '../core/ledger/index.ts';
import { isSpecId, quoteInput } from '../core/spec/index.ts';
import type { EntryFilter, Ledger, RunEntry } from '../ports/index.ts';

/** What the audit query selects; every field narrows exactly, and they combine (all must hold). */
export interface AuditFilter {
  /** A run id (`sha256:<64 hex>`) of the tenant's; another tenant's matches nothing. */
  readonly runId?: string;
  readonly workflowId?: string;
  /** An entry kind: `step.refused`, `approval.resolved`, ... */
  readonly kind?: string;
  /** Entries whose payload names this actor as who acted (core/ledger/entry-actor.ts). */
  readonly actor?: string;
  /** `step.refused` and `run.finished` entries with this `code`. */
  readonly code?: string;
  /** ISO 8601 instants with a zone: entries written at or after `since`, and before `until`. */
  readonly since?: string;
  readonly until?: string;
}

export interface AuditQuery extends AuditFilter {
  /** 1..500, default 100. */
  readonly limit?: number;
  /** `next` of the previous page, sent with the same filters. */
  readonly cursor?: string;
}

/** A ledger entry as the audit query gives it: its run's workflow and version, the payload decoded. */
export interface AuditEntry {
  readonly runId: string;
  readonly workflowId: string;
  readonly version: number;
  readonly kind: string;
  readonly seq: number;
  readonly at: string;
  readonly prevHash: string | null;
  readonly payloadHash: string;
  readonly hash: string;
  readonly payload: unknown;
}

/** A page in (at, runId, seq) order; `next` when more may match. */
export interface AuditPage {
  readonly entries: readonly AuditEntry[];
  readonly next?: string;
}

/** Matching entries by kind (every kind, 0 where none), and their sum. */
export interface AuditCounts {
  readonly counts: Record<EntryKind, number>;
  readonly total: number;
}

export interface AuditHandle {
  /** The tenant's matching entries, a page at a time, in (at, runId, seq) order. */
  entries(tenant: string, q?: AuditQuery): Promise<AuditPage>;
  /** How many of the tenant's entries match, by kind. */
  counts(tenant: string, f?: AuditFilter): Promise<AuditCounts>;
}

export const AUDIT_MAX_LIMIT = 500;
export const AUDIT_DEFAULT_LIMIT = 100;
/** The longest actor or code a filter takes. */
const MAX_TEXT = 512;
const RUN_ID = /^sha256:[0-9a-f]{64}$/;

function bad(field: string, message: string): KeelError {
  return new KeelError(ErrorCode.usage, `${field}: ${message}`, { field });
}

/** The filter as the stores take it, or a usage error naming the first field that is wrong. */
export function auditFilter(f: AuditFilter): EntryFilter {
  const out: { -readonly [K in keyof EntryFilter]: EntryFilter[K] } = {};
  const text = (field: 'actor' | 'code', v: unknown) => {
    if (v === undefined) return;
    if (typeof v !== 'string' || v.length === 0 || v.length > MAX_TEXT)
      throw bad(field, `expected 1-${MAX_TEXT} characters, got ${quoteInput(String(v))}`);
    out[field] = v;
  };
  if (f.runId !== undefined) {
    if (typeof f.runId !== 'string' || !RUN_ID.test(f.runId))
      throw bad('runId', `expected a Keel run id sha256:<64 hex>, got ${quoteInput(String(f.runId))}`);
    out.runId = f.runId;
  }
  if (f.workflowId !== undefined) {
    if (!isSpecId(f.workflowId))
      throw bad(
        'workflowId',
        `expected a workflow id of lowercase letters, digits, ".", "_" or "-", got ${quoteInput(String(f.workflowId))}`,
      );
    out.workflowId = f.workflowId;
  }
  if (f.kind !== undefined) {
    if (!isEntryKind(f.kind))
      throw bad(
        'kind',
        `expected an entry kind (${ENTRY_KINDS.join(', ')}), got ${quoteInput(String(f.kind))}`,
      );
    out.kind = f.kind;
  }
  text('actor', f.actor);
  text('code', f.code);
  for (const field of ['since', 'until'] as const) {
    const v = f[field];
    if (v === undefined) continue;
    out[field] = requireInstantBound(field, v);
  }
  return out;
}

/** An entry for the audit surface; a payload that is not JSON is named by run and seq (verify it). */
function auditEntry(e: RunEntry): AuditEntry {
  let payload: unknown;
  try {
    payload = decodePayload(e);
  } catch (cause) {
    throw new KeelError(
      ErrorCode.ledgerInvalid,
      `run ${e.runId} seq ${e.seq}: the stored payload is not JSON; check the run with keel verify ${e.runId}`,
      { runId: e.runId, seq: e.seq },
      { cause },
    );
  }
  return {
    runId: e.runId,
    workflowId: e.workflowId,
    version: e.version,
    kind: e.kind,
    seq: e.seq,
    at: e.at,
    prevHash: e.prevHash,
    payloadHash: e.payloadHash,
    hash: e.hash,
    payload,
  };
}

export function auditHandle(ledger: Ledger): AuditHandle {
  return {
    async entries(tenant: string, q: AuditQuery = {}): Promise<AuditPage> {
      const filter = auditFilter(q);
      const limit = q.limit ?? AUDIT_DEFAULT_LIMIT;
      if (!Number.isSafeInteger(limit) || limit < 1 || limit > AUDIT_MAX_LIMIT)
        throw bad(
          'limit',
          `expected an integer from 1 to ${AUDIT_MAX_LIMIT}, got ${quoteInput(String(limit))}`,
        );
      if (q.cursor !== undefined && (typeof q.cursor !== 'string' || q.cursor.length === 0))
        throw bad('cursor', 'expected the `next` of a previous page');
      const page = await ledger.queryEntries(tenant, {
        ...filter,
        limit,
        ...(q.cursor !== undefined ? { cursor: q.cursor } : {}),
      });
      const entries = page.entries.map(auditEntry);
      return page.next ? { entries, next: page.next } : { entries };
    },
    async counts(tenant: string, f: AuditFilter = {}): Promise<AuditCounts> {
      const found = await ledger.countEntries(tenant, auditFilter(f));
      const counts = Object.fromEntries(ENTRY_KINDS.map((k) => [k, found[k] ?? 0])) as Record<
        EntryKind,
        number
      >;
      // A kind this Keel does not know (a ledger that fails verification) is still counted.
      for (const [k, n] of Object.entries(found))
        if (!isEntryKind(k)) (counts as Record<string, number>)[k] = n;
      return { counts, total: Object.values(counts).reduce((a, b) => a + b, 0) };
    },
  };
}
