export { type Canonical, canonicalize } from './canonicalize.ts';
export { type Digest, digestBytes, hashOf, isDigest } from './digest.ts';
