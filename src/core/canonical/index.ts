export { type Canonical, canonicalize, freezeCanonical } from './canonicalize.ts';
export { type Digest, digestBytes, hashOf, isDigest } from './digest.ts';
