/**
 * The delegation keys of `createKeel`'s config: per tenant, the Ed25519 private key that signs the
 * child writs of `core.delegate` steps (docs/governance.md, Delegation). Read once, here; a key
 * that is not an Ed25519 private key is refused naming the tenant. The key never enters a store,
 * a ledger or any output: only its key id (the issuer named in child writs) does.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { keyIdOf } from '../core/writs/index.ts';
import type { DelegationKey } from '../engine/index.ts';

/** Per-tenant delegation keys: Ed25519 private keys, as KeyObjects or PKCS#8 PEM text. */
export type DelegationKeysConfig = Readonly<Record<string, KeyObject | string>>;

export function delegationKeys(
  config: DelegationKeysConfig | undefined,
): ((tenant: string) => DelegationKey | undefined) | undefined {
  if (!config) return undefined;
  const keys = new Map<string, DelegationKey>();
  for (const [tenant, k] of Object.entries(config)) {
    try {
      const privateKey = typeof k === 'string' ? createPrivateKey(k) : k;
      if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'ed25519')
        throw new Error(`it is a ${privateKey.asymmetricKeyType ?? ''} ${privateKey.type} key`);
      keys.set(tenant, { privateKey, keyId: keyIdOf(createPublicKey(privateKey)) });
    } catch (e) {
      throw new KeelError(
        ErrorCode.writInvalid,
        `delegationKeys.${tenant}: not an Ed25519 private key: ${(e as Error).message}`,
        { field: `delegationKeys.${tenant}` },
      );
    }
  }
  return (tenant) => keys.get(tenant);
}
