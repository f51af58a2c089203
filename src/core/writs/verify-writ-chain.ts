/**
 * Verifying a writ with its chain: root first, the presented writ last.
 *
 * A valid signature is not an authorization decision: besides each signature, every link is
 * re-checked as a subset of its parent (the same rules as attenuation, against the parent's full
 * budget), its `parent` must be the parent's hash and its depth one more. The root must be signed
 * by a key trusted as a root for the writ's tenant; a child must be signed by a key trusted for
 * that tenant. A child presented without its chain is rejected. Pure; never throws on bad input.
 *
 * Chains are values and never mutated: a result is remembered for the chain (by identity, then by
 * its canonical bytes, bounded) and the trusted key list it was computed for (by identity), so a
 * run checking its writ for every proposal, or many runs under one writ, verify it once.
 */
import type { KeyObject } from 'node:crypto';
import { canonicalize, type Digest } from '../canonical/index.ts';
import { subsetViolations } from './attenuate.ts';
import { writSignatureValid } from './sign-writ.ts';
import { type SignedWrit, WritCode, type WritViolation, writHash } from './writ.ts';
import { signedWritProblems } from './writ-shape.ts';

/** A key the verifier trusts to sign writs of one tenant. */
export interface TrustedKey {
  readonly keyId: string;
  readonly tenant: string;
  readonly publicKey: KeyObject;
}

export type ChainResult =
  | { readonly ok: true; readonly leaf: SignedWrit; readonly hashes: readonly Digest[] }
  | { readonly ok: false; readonly index: number; readonly violations: readonly WritViolation[] };

const fail = (index: number, code: WritCode, field: string, message: string): ChainResult => ({
  ok: false,
  index,
  violations: [{ code, field, message }],
});

type Remembered = { readonly trusted: readonly TrustedKey[]; readonly result: ChainResult };
const byIdentity = new WeakMap<readonly unknown[], Remembered>();
const byContent = new Map<string, Remembered>();
const BY_CONTENT_MAX = 256;

function contentKey(chain: readonly unknown[]): string | undefined {
  try {
    return canonicalize(chain);
  } catch {
    return undefined; // not canonical JSON: verifyOnce names the problem
  }
}

/** `canonical`: the chain's canonical form, when the caller has it already (saves encoding it again). */
export function verifyWritChain(
  chain: readonly unknown[],
  trusted: readonly TrustedKey[],
  canonical?: string,
): ChainResult {
  const known = byIdentity.get(chain);
  if (known?.trusted === trusted) return known.result;
  const key = canonical ?? contentKey(chain);
  const same = key === undefined ? undefined : byContent.get(key);
  const remembered = same?.trusted === trusted ? same : { trusted, result: verifyOnce(chain, trusted) };
  byIdentity.set(chain, remembered);
  if (key !== undefined && remembered !== same) {
    if (byContent.size >= BY_CONTENT_MAX) byContent.clear();
    byContent.set(key, remembered);
  }
  return remembered.result;
}

function verifyOnce(chain: readonly unknown[], trusted: readonly TrustedKey[]): ChainResult {
  if (chain.length === 0) return fail(0, WritCode.chainUntrusted, '', 'no writ was presented');
  const hashes: Digest[] = [];
  for (let i = 0; i < chain.length; i++) {
    const raw = chain[i];
    const shape = signedWritProblems(raw);
    if (shape.length > 0)
      return { ok: false, index: i, violations: shape.map((p) => ({ code: WritCode.malformed, ...p })) };
    const w = raw as SignedWrit;
    const b = w.body;
    if (i === 0 && b.parent !== null)
      return fail(
        0,
        WritCode.chainUntrusted,
        'parent',
        `writ ${b.id} names a parent, but its chain to a trusted root was not presented`,
      );
    const key = trusted.find((k) => k.keyId === b.issuer && k.tenant === b.tenant);
    if (!key)
      return fail(
        i,
        WritCode.chainUntrusted,
        'issuer',
        `issuer ${b.issuer} is not a trusted key of tenant ${b.tenant}`,
      );
    if (!writSignatureValid(w, key.publicKey))
      return fail(
        i,
        WritCode.signatureInvalid,
        'signature',
        `the signature of writ ${b.id} does not verify with key ${b.issuer}`,
      );
    if (i > 0) {
      const parent = (chain[i - 1] as SignedWrit).body;
      if (b.parent !== hashes[i - 1])
        return fail(
          i,
          WritCode.parentMismatch,
          'parent',
          `writ ${b.id} names parent ${b.parent}, but the writ before it is ${hashes[i - 1]}`,
        );
      if (b.depth !== parent.depth + 1)
        return fail(
          i,
          WritCode.parentMismatch,
          'depth',
          `writ ${b.id} has depth ${b.depth}, its parent ${parent.depth}`,
        );
      const violations = subsetViolations(parent, b);
      if (violations.length > 0) return { ok: false, index: i, violations };
    }
    hashes.push(writHash(w));
  }
  return { ok: true, leaf: chain[chain.length - 1] as SignedWrit, hashes };
}
