/**
 * The governance part of `createKeel`'s config, normalised for the engine: a tenant's policy (a
 * map or a function) and the public keys a tenant trusts to sign writs (KeyObjects or PEM text).
 * Keys are read once, here; a key that is not an Ed25519 public key is refused naming the tenant
 * and its index. Every policy handed out is remembered by hash, so a run pinned to a policy the
 * tenant has since replaced (a function config returning a new one) is still judged by its own.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { Policy } from '../core/policy/index.ts';
import { keyIdOf, type TrustedKey } from '../core/writs/index.ts';
import type { GovernanceConfig } from '../engine/index.ts';

/** Per-tenant policies: a map from tenant to policy, or a function (undefined: no policy). */
export type PoliciesConfig = Readonly<Record<string, Policy>> | ((tenant: string) => Policy | undefined);

/** Per-tenant trusted writ keys: Ed25519 public keys, as KeyObjects or SPKI PEM text. */
export type TrustedKeysConfig = Readonly<Record<string, readonly (KeyObject | string)[]>>;

function publicKeyOf(k: KeyObject | string, tenant: string, i: number): KeyObject {
  try {
    const key = typeof k === 'string' ? createPublicKey(k) : k.type === 'private' ? createPublicKey(k) : k;
    if (key.asymmetricKeyType !== 'ed25519') throw new Error(`it is a ${key.asymmetricKeyType} key`);
    return key;
  } catch (e) {
    throw new KeelError(
      ErrorCode.writInvalid,
      `trustedKeys.${tenant}[${i}]: not an Ed25519 public key: ${(e as Error).message}`,
      { field: `trustedKeys.${tenant}[${i}]` },
    );
  }
}

/** How many (tenant, policy) pairs a process remembers for pinned runs; the oldest goes first. */
const SEEN_POLICIES_MAX = 1024;

export function governanceConfig(
  policies: PoliciesConfig | undefined,
  trustedKeys: TrustedKeysConfig | undefined,
): GovernanceConfig | undefined {
  if (!policies && !trustedKeys) return undefined;
  const trusted = new Map<string, TrustedKey[]>();
  for (const [tenant, keys] of Object.entries(trustedKeys ?? {})) {
    trusted.set(
      tenant,
      keys.map((k, i) => {
        const publicKey = publicKeyOf(k, tenant, i);
        return { keyId: keyIdOf(publicKey), tenant, publicKey };
      }),
    );
  }
  const current =
    typeof policies === 'function'
      ? policies
      : (tenant: string) => (policies && Object.hasOwn(policies, tenant) ? policies[tenant] : undefined);
  // Every policy seen for a tenant, by hash: runs stay pinned to theirs after the tenant's changes.
  const seen = new Map<string, Policy>();
  // The policy last handed out per tenant: asking again for the same one builds no key.
  const last = new Map<string, Policy>();
  const policyFor = (tenant: string): Policy | undefined => {
    const p = current(tenant);
    if (p && last.get(tenant) !== p) {
      if (last.size >= SEEN_POLICIES_MAX) last.clear();
      last.set(tenant, p);
      const key = `${tenant}\u0000${p.hash}`;
      if (!seen.has(key)) {
        if (seen.size >= SEEN_POLICIES_MAX) seen.delete(seen.keys().next().value!);
        seen.set(key, p);
      }
    }
    return p;
  };
  if (policies && typeof policies !== 'function') for (const t of Object.keys(policies)) policyFor(t);
  return {
    policyFor,
    policyByHash: (tenant, hash) => seen.get(`${tenant}\u0000${hash}`),
    trustedFor: (tenant) => trusted.get(tenant) ?? [],
  };
}
