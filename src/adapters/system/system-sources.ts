/**
 * The real world's nondeterminism: wall clock, cryptographic randomness, process environment.
 * Only the composition root hands these to the engine, which records every value it draws.
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { RawSources } from '../../ports/index.ts';

export function systemSources(env: Readonly<Record<string, string | undefined>> = process.env): RawSources {
  return {
    clock: { now: () => Date.now() },
    random: {
      // 48 random bits: a float in [0, 1) with no modulo bias.
      float: () => randomInt(0, 2 ** 48) / 2 ** 48,
      uuid: () => randomUUID(),
      bytes: (n) => randomBytes(n),
    },
    env: { get: (name) => env[name] },
  };
}
