/**
 * The real world's nondeterminism: wall clock, cryptographic randomness, process environment.
 * Only the composition root hands these to the engine, which records every value it draws.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { RawSources } from '../../ports/index.ts';

/** Bits of a random float: 48, the most `readUIntBE` reads at once; every value is exact in a double. */
const FLOAT_BYTES = 6;
const FLOAT_SCALE = 2 ** (8 * FLOAT_BYTES);

export function systemSources(env: Readonly<Record<string, string | undefined>> = process.env): RawSources {
  return {
    clock: { now: () => Date.now() },
    random: {
      // 48 random bits over 2^48: a float in [0, 1), uniform on its 2^48 steps, with no modulo bias.
      float: () => randomBytes(FLOAT_BYTES).readUIntBE(0, FLOAT_BYTES) / FLOAT_SCALE,
      uuid: () => randomUUID(),
      bytes: (n) => randomBytes(n),
    },
    env: { get: (name) => env[name] },
  };
}
