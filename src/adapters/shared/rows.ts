/**
 * Store rows (SQLite and PostgreSQL alike) to the ports' records, and the run-listing cursor.
 * Pure mapping: nothing here queries. Both stores use the same column names and the same cursor
 * (createdAt, runId), so a page boundary means the same thing on both.
 */
import type { Digest } from '../../core/canonical/index.ts';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { RunMode, RunStatus, StoredEntry } from '../../core/ledger/index.ts';
import type { WorkflowSpec, WorkflowStatus } from '../../core/spec/index.ts';
import type { PendingApproval, RunRecord, VersionRecord } from '../../ports/index.ts';
import type { Row } from './row.ts';

export const RUN_COLUMNS =
  'run_id, tenant, workflow_id, version, spec_hash, status, head_seq, head_hash, event_id, event_type, created_at, updated_at, mode, shadow_of, subject';

export function toRun(r: Row): RunRecord {
  return {
    runId: r.run_id as string,
    tenant: r.tenant as string,
    workflowId: r.workflow_id as string,
    version: r.version as number,
    specHash: r.spec_hash as Digest,
    status: r.status as RunStatus,
    head: { seq: r.head_seq as number, hash: r.head_hash as Digest },
    eventId: r.event_id as string,
    eventType: r.event_type as string,
    createdAt: r.created_at as string,
    updatedAt: r.updated_at as string,
    ...(typeof r.subject === 'string' && r.subject !== '' ? { subject: r.subject } : {}),
    ...(typeof r.mode === 'string' ? { mode: r.mode as RunMode } : {}),
    ...(typeof r.shadow_of === 'string' ? { shadowOf: r.shadow_of } : {}),
  };
}

/**
 * Parsed specs by their stored text, so a spec is parsed once however often it is read. Keyed by
 * the text, never by the recorded hash: a row edited after publishing yields a new object, which
 * the integrity checks then hash and refuse (a hash-keyed cache would keep serving the original).
 */
const specCache = new Map<string, WorkflowSpec>();

function specOf(r: Row): WorkflowSpec {
  const text = r.spec as string;
  let spec = specCache.get(text);
  if (!spec) {
    spec = JSON.parse(text) as WorkflowSpec;
    if (specCache.size >= 1000) specCache.clear();
    specCache.set(text, spec);
  }
  return spec;
}

export function toVersion(r: Row): VersionRecord {
  return {
    tenant: r.tenant as string,
    workflowId: r.workflow_id as string,
    version: r.version as number,
    specHash: r.spec_hash as Digest,
    spec: specOf(r),
    status: r.status as WorkflowStatus,
    publishedAt: r.published_at as string,
    publishedBy: r.published_by as string,
  };
}

export function toApproval(r: Row): PendingApproval {
  return {
    tenant: r.tenant as string,
    runId: r.run_id as string,
    proposalId: r.proposal_id as Digest,
    step: r.step as string,
    tool: r.tool as string,
    args: JSON.parse(r.args as string),
    reason: r.reason as string,
    channel: r.channel as string,
    requestedAt: r.requested_at as string,
  };
}

export function encodeCursor(createdAt: string, runId: string): string {
  return Buffer.from(JSON.stringify([createdAt, runId])).toString('base64url');
}

export function decodeCursor(cursor: string): [string, string] {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string')
      return [v[0], v[1]];
  } catch {}
  throw new KeelError(ErrorCode.usage, 'cursor: not a cursor returned by a previous page', {
    field: 'cursor',
  });
}

/**
 * After an insert of `rec` did nothing: the same content published again is a no-op that returns
 * the stored version; other content under the same id and version is refused.
 */
export function samePublishedVersion(rec: VersionRecord, existing: VersionRecord | undefined): VersionRecord {
  if (!existing) throw new KeelError(ErrorCode.internal, 'version vanished during publish');
  if (existing.specHash !== rec.specHash) {
    throw new KeelError(
      ErrorCode.versionImmutable,
      `${rec.workflowId} v${rec.version} is already published with different content (${existing.specHash}); publish it as a new version`,
      {
        workflowId: rec.workflowId,
        version: rec.version,
        publishedHash: existing.specHash,
        newHash: rec.specHash,
      },
    );
  }
  return existing;
}

/**
 * An entry from a row read in array mode whose columns, from `offset`, are
 * `seq, v, kind, prev_hash, payload_hash, hash, at, payload`. Both stores read ledgers this way
 * (no per-row objects from the driver), and both must build identical entries.
 */
export function entryFromColumns(runId: string, row: readonly unknown[], offset = 0): StoredEntry {
  return {
    v: row[offset + 1] as number,
    runId,
    seq: row[offset] as number,
    kind: row[offset + 2] as StoredEntry['kind'],
    prevHash: (row[offset + 3] as Digest | null) ?? null,
    payloadHash: row[offset + 4] as Digest,
    hash: row[offset + 5] as Digest,
    at: row[offset + 6] as string,
    payload: row[offset + 7] as Buffer,
  };
}
