/** Shared writ fixtures for the writ tests: one tenant key pair and a generous root writ. */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { keyIdOf, signWrit } from './sign-writ.ts';
import type { TrustedKey } from './verify-writ-chain.ts';
import type { SignedWrit, WritBody } from './writ.ts';

export function keyPair(tenant = 'acme'): {
  privateKey: KeyObject;
  publicKey: KeyObject;
  trusted: TrustedKey;
} {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, publicKey, trusted: { keyId: keyIdOf(publicKey), tenant, publicKey } };
}

export function rootBody(issuer: string, over: Partial<WritBody> = {}): WritBody {
  return {
    v: 1,
    id: 'root-1',
    tenant: 'acme',
    subject: 'refund-desk',
    issuer,
    parent: null,
    scopes: ['helpdesk.*', 'issue_refund'],
    budget: { cents: 10_000, steps: 10, calls: 8 },
    window: { notBefore: '2026-03-01T00:00:00Z', notAfter: '2026-04-01T00:00:00Z' },
    effectCeiling: { max: 'external', destructive: true },
    delegation: { maxDepth: 3, maySubdivide: true },
    depth: 0,
    ...over,
  };
}

export function signedRoot(
  k: { privateKey: KeyObject; trusted: TrustedKey },
  over: Partial<WritBody> = {},
): SignedWrit {
  return signWrit(rootBody(k.trusted.keyId, over), k.privateKey);
}
