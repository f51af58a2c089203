/**
 * API keys for `keel serve`: one key names one tenant and the subject that acts with it.
 *
 * A key is `keel_<keyId>_<secret>`: keyId is 8 random bytes in hex (16 characters, safe to type
 * as a CLI argument), secret 32 random bytes in base64url. The store keeps only the SHA-256 (hex)
 * of the whole key; the key itself is returned once, by `createApiKey`, and never again. Key
 * material comes from node:crypto, never from the run sources (those are recorded and replayable).
 * Listing never shows a hash or a key.
 */
import { hash, randomBytes } from 'node:crypto';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { quoteInput } from '../core/spec/index.ts';
import type { ApiKeyInfo, Clock, Keys, PrincipalKind } from '../ports/index.ts';

/** Tenant names a key may carry. */
const NAME = /^[A-Za-z0-9._~-]{1,64}$/;
/** A DNS label: letters, digits and inner hyphens, 1-63 characters. */
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/**
 * Subjects a key may carry: a name of 1-64 characters of `A-Z a-z 0-9 . _ ~ + -`, optionally
 * followed by `@` and a domain of dot-separated labels, as an e-mail address (`dana@example.com`);
 * 254 characters at most, never a space, a control character or anything else.
 */
const SUBJECT = new RegExp(`^[A-Za-z0-9._~+-]{1,64}(?:@${LABEL}(?:\\.${LABEL})*)?$`);
export const MAX_SUBJECT = 254;
const KEY = /^keel_([0-9a-f]{16})_[A-Za-z0-9_-]{43}$/;
const KEY_ID = /^[0-9a-f]{16}$/;

export interface CreatedApiKey {
  /** The key to present (`Authorization: Bearer <key>`); shown once, stored only as its hash. */
  readonly key: string;
  readonly keyId: string;
  readonly tenant: string;
  readonly subject: string;
  readonly createdAt: string;
  readonly kind: PrincipalKind;
}

/**
 * Who a presented key acts as: its tenant, the subject recorded as the actor, and whether it is a
 * person's key (`human`: may promote versions and override gates) or an automation's (`service`).
 */
export interface ApiKeyIdentity {
  readonly tenant: string;
  readonly subject: string;
  readonly keyId: string;
  readonly kind: PrincipalKind;
}

const KINDS: readonly PrincipalKind[] = ['human', 'service'];

/** Refuses a principal kind other than human or service, naming the field. */
export function checkKeyKind(value: unknown): PrincipalKind {
  if (!KINDS.includes(value as PrincipalKind))
    throw new KeelError(ErrorCode.usage, `kind: expected human or service, got ${JSON.stringify(value)}`, {
      field: 'kind',
    });
  return value as PrincipalKind;
}

/** Refuses a tenant name outside `[A-Za-z0-9._~-]{1,64}`, naming the field. */
export function checkKeyName(value: unknown, field: 'tenant'): string {
  if (typeof value !== 'string' || !NAME.test(value)) {
    throw new KeelError(
      ErrorCode.usage,
      `${field}: expected 1-64 characters of A-Z a-z 0-9 . _ ~ -, got ${JSON.stringify(value)}`,
      { field },
    );
  }
  return value;
}

/** Refuses a subject that is neither a name nor an e-mail-like address (SUBJECT), naming the field. */
export function checkKeySubject(value: unknown): string {
  if (typeof value !== 'string' || value.length > MAX_SUBJECT || !SUBJECT.test(value)) {
    throw new KeelError(
      ErrorCode.usage,
      `subject: expected a name of 1-64 characters of A-Z a-z 0-9 . _ ~ + -, optionally followed by @ and a domain (dana@example.com), at most ${MAX_SUBJECT} characters in all, got ${quoteInput(value)}`,
      { field: 'subject' },
    );
  }
  return value;
}

export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/**
 * Mints a key for `tenant`; `subject` defaults to `key-<keyId>`. `now` is an ISO-8601 time. A key
 * is an automation's (`service`) unless made for a person (`human`): only a person may promote.
 */
export async function createApiKey(
  keys: Keys,
  tenant: string,
  subject: string | undefined,
  now: string,
  kind: PrincipalKind = 'service',
): Promise<CreatedApiKey> {
  checkKeyName(tenant, 'tenant');
  if (subject !== undefined) checkKeySubject(subject);
  checkKeyKind(kind);
  const keyId = randomBytes(8).toString('hex');
  const key = `keel_${keyId}_${randomBytes(32).toString('base64url')}`;
  const who = subject ?? `key-${keyId}`;
  await keys.putApiKey({ keyId, tenant, subject: who, hash: hashApiKey(key), createdAt: now, kind });
  return { key, keyId, tenant, subject: who, createdAt: now, kind };
}

/**
 * The identity a presented key acts as, or undefined when it is malformed, unknown or revoked.
 * There is no secret comparison to time: the key is found by the lookup of its SHA-256, and an
 * attacker learns nothing useful from how long the index lookup of a hash takes.
 */
export async function resolveApiKey(keys: Keys, presented: string): Promise<ApiKeyIdentity | undefined> {
  const m = typeof presented === 'string' ? KEY.exec(presented) : null;
  if (!m) return undefined;
  const found = await keys.findApiKey(hashApiKey(presented));
  if (!found || found.revokedAt !== undefined || found.keyId !== m[1]) return undefined;
  return { tenant: found.tenant, subject: found.subject, keyId: found.keyId, kind: found.kind };
}

/** Bearer API keys for the HTTP API: stored hashed, shown once. */
export interface ApiKeysHandle {
  /** A `service` key unless `kind` is `human` (a person's: may promote and override gates). */
  create(tenant: string, subject?: string, kind?: PrincipalKind): Promise<CreatedApiKey>;
  resolve(presented: string): Promise<ApiKeyIdentity | undefined>;
  list(tenant: string): Promise<ApiKeyInfo[]>;
  revoke(tenant: string, keyId: string): Promise<void>;
}

/** `keel.keys`: the key handle of createKeel, with times from its clock. */
export function apiKeysHandle(keys: Keys, clock: Clock): ApiKeysHandle {
  const now = () => new Date(clock.now()).toISOString();
  return {
    /** Mints a key (a `service` key unless `kind` is `human`); the returned `key` is shown only this once. */
    create: (tenant: string, subject?: string, kind?: PrincipalKind): Promise<CreatedApiKey> =>
      createApiKey(keys, tenant, subject, now(), kind),
    resolve: (presented: string): Promise<ApiKeyIdentity | undefined> => resolveApiKey(keys, presented),
    /** The tenant's keys, revoked ones included (with `revokedAt`): never a hash, never a key. */
    list: (tenant: string): Promise<ApiKeyInfo[]> => keys.listApiKeys(checkKeyName(tenant, 'tenant')),
    /** Revokes a key of the tenant (again is a no-op); not_found when the tenant has no such key. */
    async revoke(tenant: string, keyId: string): Promise<void> {
      checkKeyName(tenant, 'tenant');
      const found =
        typeof keyId === 'string' && KEY_ID.test(keyId) && (await keys.revokeApiKey(tenant, keyId, now()));
      if (!found)
        throw new KeelError(ErrorCode.notFound, `API key ${keyId} not found in tenant ${tenant}`, {
          field: 'keyId',
          keyId,
        });
    },
  };
}
