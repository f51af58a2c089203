/**
 * Signing and verifying writ bodies: Ed25519 over the canonical (RFC 8785) body bytes.
 *
 * Pure functions of their arguments: keys come in as `KeyObject`s (generating and storing them is
 * the CLI's or an adapter's job, and a private key never enters a store or a ledger). Ed25519 is
 * deterministic, so signing the same body with the same key always gives the same signature.
 * Verification is deterministic too, so a successful one is remembered per key object (bounded):
 * a run checks its writ chain for every proposal, and re-verifying the same bytes would dominate.
 */
import { type KeyObject, sign, verify } from 'node:crypto';
import { canonicalize, digestBytes } from '../canonical/index.ts';
import { ErrorCode, KeelError } from '../errors.ts';
import type { SignedWrit, WritBody } from './writ.ts';

function assertEd25519(key: KeyObject, type: 'private' | 'public'): void {
  if (key.asymmetricKeyType !== 'ed25519' || key.type !== type)
    throw new KeelError(
      ErrorCode.writInvalid,
      `expected an Ed25519 ${type} key, got ${key.asymmetricKeyType ?? key.type} ${key.type}`,
      {
        field: 'key',
      },
    );
}

/** The id writs name their issuer by: SHA-256 of the public key's DER (SPKI) bytes. */
export function keyIdOf(publicKey: KeyObject): string {
  assertEd25519(publicKey, 'public');
  return digestBytes(publicKey.export({ type: 'spki', format: 'der' }));
}

export function signWrit(body: WritBody, privateKey: KeyObject): SignedWrit {
  assertEd25519(privateKey, 'private');
  const signature = sign(null, Buffer.from(canonicalize(body), 'utf8'), privateKey).toString('base64url');
  return { body, signature };
}

/** Signature + canonical body pairs each key verified; only successes, at most VERIFIED_MAX per key. */
const verified = new WeakMap<KeyObject, Set<string>>();
const VERIFIED_MAX = 1024;

/** True when `signature` is `publicKey`'s signature over the canonical body. Never throws on bad input. */
export function writSignatureValid(w: SignedWrit, publicKey: KeyObject): boolean {
  try {
    const bytes = canonicalize(w.body);
    const memo = `${w.signature}.${bytes}`;
    const known = verified.get(publicKey);
    if (known?.has(memo)) return true;
    const ok = verify(null, Buffer.from(bytes, 'utf8'), publicKey, Buffer.from(w.signature, 'base64url'));
    if (ok) {
      const set = known ?? new Set<string>();
      if (set.size >= VERIFIED_MAX) set.clear();
      set.add(memo);
      if (!known) verified.set(publicKey, set);
    }
    return ok;
  } catch {
    return false;
  }
}
