/**
 * Keys: what a tenant's callers and writs are checked against. API keys (only the SHA-256 of each
 * presented key is kept) for `keel serve`; the public keys a tenant trusts to sign its writs and
 * the writs it revoked (neither ever deleted: a key is retired, a revocation stands); the writ
 * chains runs name, by the hash of their last writ; and the tenant's key for hashing secret
 * values, which never enters a ledger.
 */
import type { Digest } from '../core/canonical/index.ts';

/** An API key as stored: never the key itself, only the SHA-256 (hex) of the full presented key. */
export interface ApiKeyRecord {
  readonly keyId: string;
  readonly tenant: string;
  /** Who acts when the key is presented (recorded as the actor of what the request does). */
  readonly subject: string;
  readonly hash: string;
  /** ISO-8601 time. */
  readonly createdAt: string;
  /** `human`: a person (may promote and override gates); `service`: an automation. */
  readonly kind: PrincipalKind;
}

/** Who presents an API key: a person, or an automation (which may not promote). */
export type PrincipalKind = 'human' | 'service';

/** What a key lookup or listing shows: never the hash, never the key. */
export interface ApiKeyInfo {
  readonly keyId: string;
  readonly tenant: string;
  readonly subject: string;
  readonly createdAt: string;
  readonly kind: PrincipalKind;
  /** ISO-8601 time the key was revoked; a revoked key resolves to nothing. */
  readonly revokedAt?: string;
}

/** A public key a tenant trusts to sign its writs, as stored: the PEM, never a private key. */
export interface TrustedKeyRecord {
  readonly tenant: string;
  /** `sha256:` of the key's SPKI DER (`keyIdOf`), the writ's `issuer`. */
  readonly keyId: Digest;
  /** The Ed25519 public key, SPKI PEM. */
  readonly publicKeyPem: string;
  readonly addedBy: string;
  /** ISO-8601 time. */
  readonly addedAt: string;
  /** ISO-8601 time the key was retired; a retired key signs nothing from then on. */
  readonly retiredAt?: string;
}

/** A writ revoked in a tenant: it and every writ derived from it refuse from then on. */
export interface WritRevocation {
  readonly tenant: string;
  /** `writHash` of the revoked writ. */
  readonly hash: Digest;
  readonly by: string;
  /** ISO-8601 time. */
  readonly at: string;
  readonly reason?: string;
}

export interface Keys {
  /** Stores a new API key (its hash); a key id or hash already present is an internal error. */
  putApiKey(rec: ApiKeyRecord): Promise<void>;
  /**
   * The key whose hash this is, revoked or not. The one read not scoped by tenant: presenting a key
   * is how its tenant is found.
   */
  findApiKey(hash: string): Promise<ApiKeyInfo | undefined>;
  /** The tenant's keys, revoked ones included, oldest first. */
  listApiKeys(tenant: string): Promise<ApiKeyInfo[]>;
  /** Marks a key revoked at `at` (revoking twice keeps the first time); false when the tenant has no such key. */
  revokeApiKey(tenant: string, keyId: string, at: string): Promise<boolean>;
  /**
   * Trusts a public key for a tenant's writs. Adding a key already present (retired or not) changes
   * nothing and returns the stored record with `created: false`: a retired key stays retired.
   */
  addTrustedKey(
    rec: Omit<TrustedKeyRecord, 'retiredAt'>,
  ): Promise<{ created: boolean; record: TrustedKeyRecord }>;
  /** The tenant's trusted keys, retired ones included, oldest first. */
  listTrustedKeys(tenant: string): Promise<TrustedKeyRecord[]>;
  /** Marks a key retired at `at` (retiring twice keeps the first time); false when the tenant has no such key. */
  retireTrustedKey(tenant: string, keyId: string, at: string): Promise<boolean>;
  /**
   * Revokes a writ of a tenant by its hash. Revoking it again changes nothing and returns the first
   * revocation with `created: false`.
   */
  revokeWrit(rec: WritRevocation): Promise<{ created: boolean; record: WritRevocation }>;
  /** The tenant's revoked writs, oldest first. */
  listRevokedWrits(tenant: string): Promise<WritRevocation[]>;
  /**
   * Stores a writ chain (root first, its canonical JSON text) under the hash of its last writ, the
   * hash a run's root names. Content-addressed: storing a hash already present changes nothing.
   */
  putWritChain(tenant: string, hash: Digest, chain: string): Promise<void>;
  /** The chain stored under `hash` for the tenant, as stored; undefined when there is none. */
  getWritChain(tenant: string, hash: Digest): Promise<string | undefined>;
  /**
   * The tenant's key for hashing secret values (32 bytes): the stored one, or `candidate`, stored
   * now, when the tenant has none yet. It never changes once stored and never enters a ledger.
   */
  secretKey(tenant: string, candidate: Uint8Array): Promise<Uint8Array>;
}
