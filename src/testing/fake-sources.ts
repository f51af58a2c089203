/**
 * Deterministic sources for tests: a clock that advances 1 ms per read from a fixed start, a
 * seeded random generator, and an environment from a plain object. Each read is counted, so a
 * test can assert that replay or recovery drew nothing.
 */
import type { RawSources } from '../ports/index.ts';

export interface FakeSources extends RawSources {
  readonly reads: { clock: number; random: number; env: number };
  /** Moves the clock forward. */
  advance(ms: number): void;
}

export function fakeSources(
  o: { start?: number; seed?: number; env?: Record<string, string> } = {},
): FakeSources {
  let t = o.start ?? Date.UTC(2026, 0, 1);
  let state = (o.seed ?? 42) >>> 0;
  const reads = { clock: 0, random: 0, env: 0 };
  // mulberry32: small, seedable, good enough for tests.
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  return {
    reads,
    advance: (ms) => {
      t += ms;
    },
    clock: {
      now: () => {
        reads.clock++;
        return t++;
      },
    },
    random: {
      float: () => {
        reads.random++;
        return next();
      },
      bytes: (n) => {
        reads.random++;
        return Uint8Array.from({ length: n }, () => Math.floor(next() * 256));
      },
      uuid: () => {
        reads.random++;
        const h = Array.from({ length: 16 }, () => Math.floor(next() * 256));
        h[6] = (h[6]! & 0x0f) | 0x40;
        h[8] = (h[8]! & 0x3f) | 0x80;
        const hex = h.map((b) => b.toString(16).padStart(2, '0')).join('');
        return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
      },
    },
    env: {
      get: (name) => {
        reads.env++;
        return o.env?.[name];
      },
    },
  };
}
