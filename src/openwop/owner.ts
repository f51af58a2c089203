/**
 * Who owns a run, as OpenWOP v2 shows it (identity.md §1.1): `{tenant, subject}` where the
 * subject is the closed object `{issuer, subjectId, tenant, lane, kind}`. A run created over
 * OpenWOP records its owner in its triggering event when it is created (the credential's subject,
 * never the request body's); the snapshot and `run.started` both read it from there, so they always
 * agree. A run created otherwise (`keel emit`, `keel run`) has no such record: it gets the legacy
 * subject (`issuer: urn:openwop:legacy`), derived the same way on every read.
 */
import type { PayloadOf } from '../core/ledger/index.ts';

export interface Subject {
  readonly issuer: string;
  readonly subjectId: string;
  readonly tenant: string;
  readonly lane: 'api-key';
  readonly kind: 'user';
}

export interface Owner {
  readonly tenant: string;
  readonly subject: Subject;
}

/** The trust root of Keel's API keys (`keel keys create`): the issuer of every key's subject. */
export const API_KEY_ISSUER = 'urn:keel:api-key';
/** The issuer OpenWOP reserves for owners no credential named (identity.md §1.2). */
export const LEGACY_ISSUER = 'urn:openwop:legacy';

/** A subject id as the grammar allows it (`^[^\s/]{1,256}$`): whitespace, `/` and `%` escaped. */
function subjectIdOf(name: string): string {
  const id = name.replace(/[\s/%]/gu, (c) => encodeURIComponent(c));
  return id.length === 0 ? 'unknown' : id.slice(0, 256);
}

/** The subject an API key of `tenant` acts as (`keel keys create --subject`). */
export function apiKeySubject(tenant: string, subject: string): Subject {
  return { issuer: API_KEY_ISSUER, subjectId: subjectIdOf(subject), tenant, lane: 'api-key', kind: 'user' };
}

function isSubject(v: unknown): v is Subject {
  const s = v as Partial<Subject> | null;
  return (
    typeof s === 'object' &&
    s !== null &&
    typeof s.issuer === 'string' &&
    typeof s.subjectId === 'string' &&
    typeof s.tenant === 'string' &&
    typeof s.lane === 'string' &&
    typeof s.kind === 'string'
  );
}

/** The owner of the run whose root this is, exactly as its snapshot and `run.started` show it. */
export function runOwner(root: PayloadOf<'run.started'>): Owner {
  const recorded = root.event.payload.owner as { subject?: unknown } | undefined;
  const s = recorded?.subject;
  if (isSubject(s)) {
    const { issuer, subjectId, tenant, lane, kind } = s;
    return { tenant: root.tenant, subject: { issuer, subjectId, tenant, lane, kind } };
  }
  // Recorded before owners were subjects: the API key's subject, by name.
  if (typeof s === 'string') return { tenant: root.tenant, subject: apiKeySubject(root.tenant, s) };
  return {
    tenant: root.tenant,
    subject: {
      issuer: LEGACY_ISSUER,
      subjectId: subjectIdOf(root.event.source),
      tenant: root.tenant,
      lane: 'api-key',
      kind: 'user',
    },
  };
}
