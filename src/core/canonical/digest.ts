/**
 * SHA-256 content addresses, printed `sha256:<hex>`.
 *
 * The only place in core that touches `node:crypto`: hashing is a pure function of its bytes.
 */
import { hash } from 'node:crypto';
import { canonicalize } from './canonicalize.ts';

export type Digest = `sha256:${string}`;

const DIGEST_RE = /^sha256:[0-9a-f]{64}$/;

/** SHA-256 of raw bytes or of a string's UTF-8 bytes. */
export function digestBytes(bytes: string | Uint8Array): Digest {
  return `sha256:${hash('sha256', bytes, 'hex')}`;
}

/** SHA-256 of the canonical form of a value: the content address of any Keel document. */
export function hashOf(value: unknown): Digest {
  return digestBytes(canonicalize(value));
}

export function isDigest(s: unknown): s is Digest {
  return typeof s === 'string' && DIGEST_RE.test(s);
}
