/**
 * The raw nondeterminism the engine may draw from. The engine never calls these directly from a
 * step: it goes through recording sources that ledger each value at the point it is read.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export interface RandomSource {
  /** A float in [0, 1). */
  float(): number;
  /** A random UUID v4 string. */
  uuid(): string;
  /** `n` random bytes. */
  bytes(n: number): Uint8Array;
}

export interface EnvSource {
  get(name: string): string | undefined;
}

export interface RawSources {
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly env: EnvSource;
}
