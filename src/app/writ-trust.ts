/**
 * Writ trust kept in the store: a tenant's trusted Ed25519 public keys (added, listed, retired —
 * never deleted) and its revoked writs, and the per-process cache the engine reads them through.
 *
 * The engine trusts a tenant's configured keys (createKeel trustedKeys, keel --trust-keys) plus
 * its stored keys that are not retired, and refuses any writ whose chain names a revoked hash.
 * Staleness: a write through this handle takes effect in this process at once (the cache is
 * refreshed, and the tenant's revoked set is updated in place, so a walk in progress sees it at
 * its next proposal); another process sees it when its cache entry, at most `ttlMs` old, is next
 * read — at the start of a walk. A private key never passes through here.
 */
import { createPublicKey } from 'node:crypto';
import type { Digest } from '../core/canonical/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import {
  keyIdOf,
  type SignedWrit,
  signedWritProblems,
  type TrustedKey,
  verifyWritChain,
  type WritBody,
  WritCode,
  writHash,
} from '../core/writs/index.ts';
import type { GovernanceConfig, TenantWritTrust } from '../engine/index.ts';
import type { Clock, Store, TrustedKeyRecord, WritBudgetUsage, WritRevocation } from '../ports/index.ts';

/** How long a process trusts its cached copy of a tenant's stored keys and revocations (ms). */
export const WRIT_TRUST_TTL_MS = 5_000;

const HASH = /^sha256:[0-9a-f]{64}$/;

interface Cached {
  /** Configured + stored (unretired) keys; replaced only when the key set changes. */
  trusted: readonly TrustedKey[];
  keySet: string;
  /** One set per tenant, updated in place on refresh: walks holding it see revocations at once. */
  readonly revoked: Set<string>;
  loadedAt: number;
  loading?: Promise<void> | undefined;
  /** This entry, resolved: what `load` answers while it is fresh (no promise made per call). */
  ready?: Promise<TenantWritTrust>;
}

function keyOf(r: TrustedKeyRecord): TrustedKey {
  return { keyId: r.keyId, tenant: r.tenant, publicKey: createPublicKey(r.publicKeyPem) };
}

/** The per-process cache of stored writ trust, merged with the configured keys. */
export class WritTrustCache {
  private readonly tenants = new Map<string, Cached>();

  constructor(
    private readonly store: Store,
    private readonly configured: (tenant: string) => readonly TrustedKey[],
    private readonly ttlMs = WRIT_TRUST_TTL_MS,
    /**
     * Ages cache entries (ms, monotonic). Not the run sources' clock: reading that would move the
     * times runs record, and cache age is no part of any run.
     */
    private readonly elapsed: () => number = () => performance.now(),
  ) {}

  /** The tenant's keys (configured and stored, unretired) and revoked writ hashes. */
  load = (tenant: string): Promise<TenantWritTrust> => {
    let c = this.tenants.get(tenant);
    if (!c) {
      c = { trusted: [], keySet: '', revoked: new Set(), loadedAt: Number.NEGATIVE_INFINITY };
      this.tenants.set(tenant, c);
    }
    if (this.elapsed() - c.loadedAt < this.ttlMs) {
      c.ready ??= Promise.resolve(c);
      return c.ready;
    }
    const cached = c;
    return this.refresh(tenant, c).then(() => cached);
  };

  /** Reads the tenant's rows again now (after a write through this process). */
  async invalidate(tenant: string): Promise<void> {
    const c = this.tenants.get(tenant);
    if (c) await this.refresh(tenant, c, true);
  }

  private refresh(tenant: string, c: Cached, force = false): Promise<void> {
    if (c.loading && !force) return c.loading;
    const loading = (async () => {
      const [keys, revocations] = await Promise.all([
        this.store.keys.listTrustedKeys(tenant),
        this.store.keys.listRevokedWrits(tenant),
      ]);
      const live = keys.filter((k) => k.retiredAt === undefined);
      const configured = this.configured(tenant);
      const keySet = [...configured.map((k) => k.keyId), '|', ...live.map((k) => k.keyId)].join(',');
      if (keySet !== c.keySet) {
        const own = new Set(configured.map((k) => k.keyId));
        c.trusted = [...configured, ...live.filter((k) => !own.has(k.keyId)).map(keyOf)];
        c.keySet = keySet;
      }
      for (const r of revocations) c.revoked.add(r.hash);
      c.loadedAt = this.elapsed();
    })();
    c.loading = loading;
    return loading.finally(() => {
      if (c.loading === loading) c.loading = undefined;
    });
  }

  /**
   * The keys a replay judges with: configured plus every stored key, retired ones included (the
   * recorded decisions were made while they were trusted).
   */
  async replayKeys(tenant: string): Promise<readonly TrustedKey[]> {
    const configured = this.configured(tenant);
    const own = new Set(configured.map((k) => k.keyId));
    const stored = await this.store.keys.listTrustedKeys(tenant);
    return [...configured, ...stored.filter((k) => !own.has(k.keyId)).map(keyOf)];
  }
}

/** What `inspect` says of a writ (a file's `{chain}` or the chain) for one tenant. */
export interface WritInspection {
  /** The presented writ's hash (`writHash` of the last link). */
  readonly hash: Digest;
  /** Whether the chain verifies against the tenant's trusted keys (configured and stored). */
  readonly verified: boolean;
  /** Why it does not verify, or why it would be refused (revoked, another tenant). */
  readonly refusal?: { readonly code: string; readonly link: number; readonly message: string };
  /** The revocation that refuses it (of this writ or an ancestor), if any. */
  readonly revoked?: WritRevocation;
  readonly writ: WritBody;
  readonly chain: readonly {
    readonly id: string;
    readonly hash: Digest;
    readonly issuer: string;
    readonly depth: number;
  }[];
}

/** A writ file's value `{chain: [...]}` or the chain itself, every link well-formed. */
export function chainOf(value: unknown, field = 'writ'): SignedWrit[] {
  const chain = Array.isArray(value) ? value : (value as { chain?: unknown } | null)?.chain;
  if (!Array.isArray(chain) || chain.length === 0)
    throw new KeelError(
      ErrorCode.writInvalid,
      `${field}: expected {"chain": [root, ..., writ]} or the chain`,
      {
        field,
      },
    );
  chain.forEach((w, i) => {
    const p = signedWritProblems(w)[0];
    if (p)
      throw new KeelError(ErrorCode.writInvalid, `${field}: chain[${i}].${p.field}: ${p.message}`, {
        field: `${field}.chain[${i}].${p.field}`,
      });
  });
  return chain as SignedWrit[];
}

/** A writ named by its hash, or presented (a `{chain}` or chain, whose last link must be the tenant's). */
function targetHash(tenant: string, target: string | unknown): Digest {
  if (typeof target === 'string') {
    if (!HASH.test(target))
      throw new KeelError(
        ErrorCode.writInvalid,
        `hash: expected sha256:<64 hex>, got ${JSON.stringify(target)}`,
        {
          field: 'hash',
        },
      );
    return target as Digest;
  }
  const chain = chainOf(target);
  const leaf = chain[chain.length - 1]!.body;
  if (leaf.tenant !== tenant)
    throw new KeelError(ErrorCode.writRefused, `writ ${leaf.id} is for another tenant`, {
      code: WritCode.tenantDenied,
      field: 'tenant',
    });
  return writHash(leaf);
}

/** Stored trusted writ keys, writ revocations, and inspecting a writ for a tenant. */
export interface WritsHandle {
  trust(
    tenant: string,
    publicKeyPem: string,
    by: string,
  ): Promise<{ created: boolean; record: TrustedKeyRecord }>;
  trusted(tenant: string): Promise<TrustedKeyRecord[]>;
  untrust(tenant: string, keyId: string): Promise<TrustedKeyRecord>;
  revoke(
    tenant: string,
    target: string | unknown,
    by: string,
    reason?: string,
  ): Promise<{ created: boolean; record: WritRevocation }>;
  revoked(tenant: string): Promise<WritRevocation[]>;
  /**
   * The budget of each writ of a chain (root first), shared by every run under it: its limit and
   * what runs reserved from it. By the writ's hash, or the presented writ (its last link);
   * not_found when no run here was ever started under it.
   */
  budgets(tenant: string, target: string | unknown): Promise<WritBudgetUsage[]>;
  inspect(tenant: string, value: unknown): Promise<WritInspection>;
}

/** The `keel.writs` handle: stored trusted keys, revocations, and inspecting a writ for a tenant. */
export function writsHandle(store: Store, cache: WritTrustCache, clock: Clock): WritsHandle {
  const now = () => new Date(clock.now()).toISOString();
  return {
    /** Trusts an Ed25519 public key (SPKI PEM) for the tenant's writs; adding it again changes nothing. */
    async trust(
      tenant: string,
      publicKeyPem: string,
      by: string,
    ): Promise<{ created: boolean; record: TrustedKeyRecord }> {
      let pem: string;
      let keyId: string;
      try {
        const key = createPublicKey(publicKeyPem);
        if (key.asymmetricKeyType !== 'ed25519') throw new Error(`it is a ${key.asymmetricKeyType} key`);
        pem = key.export({ type: 'spki', format: 'pem' }).toString();
        keyId = keyIdOf(key);
      } catch (e) {
        throw new KeelError(
          ErrorCode.writInvalid,
          `publicKeyPem: not an Ed25519 public key in PEM: ${(e as Error).message}`,
          { field: 'publicKeyPem' },
        );
      }
      const r = await store.keys.addTrustedKey({
        tenant,
        keyId: keyId as Digest,
        publicKeyPem: pem,
        addedBy: by,
        addedAt: now(),
      });
      await cache.invalidate(tenant);
      return r;
    },
    /** The tenant's stored keys, retired ones included, oldest first. */
    trusted: (tenant: string): Promise<TrustedKeyRecord[]> => store.keys.listTrustedKeys(tenant),
    /** Retires a stored key: writs it signed stop verifying. not_found when the tenant has no such key. */
    async untrust(tenant: string, keyId: string): Promise<TrustedKeyRecord> {
      if (!(await store.keys.retireTrustedKey(tenant, keyId, now())))
        throw new KeelError(ErrorCode.notFound, `trusted key ${keyId} not found`, { keyId });
      await cache.invalidate(tenant);
      return (await store.keys.listTrustedKeys(tenant)).find((k) => k.keyId === keyId)!;
    },
    /**
     * Revokes a writ by its hash, or the presented writ (the last link of a `{chain}` or chain, which
     * must be the tenant's): it and every writ derived from it are refused `writ_revoked` from the
     * next proposal on. Revoking again returns the first revocation (`created: false`).
     */
    async revoke(
      tenant: string,
      target: string | unknown,
      by: string,
      reason?: string,
    ): Promise<{ created: boolean; record: WritRevocation }> {
      const hash = targetHash(tenant, target);
      const r = await store.keys.revokeWrit({
        tenant,
        hash,
        by,
        at: now(),
        ...(reason !== undefined && reason !== '' ? { reason } : {}),
      });
      await cache.invalidate(tenant);
      return r;
    },
    /** The tenant's revoked writs, oldest first. */
    revoked: (tenant: string): Promise<WritRevocation[]> => store.keys.listRevokedWrits(tenant),
    /**
     * The budget of each writ of a chain (root first), shared by every run under it: its limit and
     * what runs reserved from it. By the writ's hash, or the presented writ (its last link).
     * not_found when no run here was ever started under it (its chain is not stored).
     */
    async budgets(tenant: string, target: string | unknown): Promise<WritBudgetUsage[]> {
      const hash = targetHash(tenant, target);
      const usage = await store.budgets.readWritBudgets(tenant, hash);
      if (!usage)
        throw new KeelError(ErrorCode.notFound, `no run of tenant ${tenant} was started under writ ${hash}`, {
          writ: hash,
        });
      return usage;
    },
    /** Verifies a writ against the tenant's trusted keys (configured and stored) and its revocations. */
    async inspect(tenant: string, value: unknown): Promise<WritInspection> {
      const chain = chainOf(value);
      const leaf = chain[chain.length - 1]!.body;
      const hashes = chain.map((w) => writHash(w));
      const trust = await cache.load(tenant);
      const r = verifyWritChain(chain, trust.trusted);
      let refusal: WritInspection['refusal'];
      let revoked: WritRevocation | undefined;
      if (!r.ok) {
        const v = r.violations[0]!;
        refusal = { code: v.code, link: r.index, message: v.message };
      } else if (leaf.tenant !== tenant) {
        refusal = {
          code: WritCode.tenantDenied,
          link: chain.length - 1,
          message: `writ ${leaf.id} is for another tenant`,
        };
      } else {
        const at = hashes.findIndex((h) => trust.revoked.has(h));
        if (at >= 0) {
          revoked = (await store.keys.listRevokedWrits(tenant)).find((x) => x.hash === hashes[at]);
          refusal = {
            code: WritCode.revoked,
            link: at,
            message:
              at === chain.length - 1
                ? `writ ${leaf.id} was revoked`
                : `writ ${leaf.id} derives from revoked writ ${chain[at]!.body.id}`,
          };
        }
      }
      return {
        hash: hashes[hashes.length - 1]!,
        verified: r.ok,
        ...(refusal ? { refusal } : {}),
        ...(revoked ? { revoked } : {}),
        writ: leaf,
        chain: chain.map((w, i) => ({
          id: w.body.id,
          hash: hashes[i]!,
          issuer: w.body.issuer,
          depth: w.body.depth,
        })),
      };
    },
  };
}

const NO_REVOKED: ReadonlySet<string> = new Set();

/** Revocations as a function of a decision's time: those made at or before it. */
function revokedAsOfTime(revocations: readonly WritRevocation[]): (now: string) => ReadonlySet<string> {
  if (revocations.length === 0) return () => NO_REVOKED;
  const timed = revocations.map((r) => ({ hash: r.hash, at: Date.parse(r.at) }));
  return (now) => {
    const t = Date.parse(now);
    return new Set(timed.filter((r) => r.at <= t).map((r) => r.hash));
  };
}

/**
 * The engine's governance with stored writ trust added: the configured policies and keys (if any)
 * plus `writTrustFor`, read through one cache per Keel.
 */
export function storedWritTrust(
  store: Store,
  configured: GovernanceConfig | undefined,
): {
  governance: GovernanceConfig;
  writTrust: WritTrustCache;
  replayGovernance(tenant: string): Promise<GovernanceConfig>;
} {
  const base: GovernanceConfig = configured ?? { policyFor: () => undefined, trustedFor: () => [] };
  const writTrust = new WritTrustCache(store, base.trustedFor);
  return {
    governance: { ...base, writTrustFor: writTrust.load },
    writTrust,
    // Replay judges as the record did: every key ever stored (see replayKeys), and a writ counts
    // as revoked for the decisions timed at or after its revocation.
    async replayGovernance(tenant) {
      const [keys, revocations] = await Promise.all([
        writTrust.replayKeys(tenant),
        store.keys.listRevokedWrits(tenant),
      ]);
      const revoked = revokedAsOfTime(revocations);
      return {
        ...base,
        trustedFor: (t) => (t === tenant ? keys : base.trustedFor(t)),
        revokedFor: (t) => (t === tenant ? revoked : NO_REVOKED),
      };
    },
  };
}
