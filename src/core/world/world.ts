/**
 * The world: the projection of the resources a run has touched, folded from its deltas. Applying
 * deltas is all or nothing: a step's deltas go onto a trial copy, and only if every one applies
 * does the caller keep the result. Pure: worlds are values, never mutated once returned.
 */
import type { Delta } from './delta.ts';

export interface Resource {
  readonly id: string;
  readonly version: number;
  readonly value: unknown;
}

export type World = ReadonlyMap<string, Resource>;

export const EMPTY_WORLD: World = new Map();

export type DeltaFailureCode =
  | 'delta_create_on_existing'
  | 'delta_replace_on_missing'
  | 'delta_retract_on_missing'
  | 'delta_stale_version';

export interface DeltaFailure {
  readonly code: DeltaFailureCode;
  readonly index: number;
  readonly id: string;
  readonly message: string;
}

export type ApplyResult =
  | { readonly ok: true; readonly world: World }
  | { readonly ok: false; readonly failure: DeltaFailure };

/** Applies `deltas` in order to a trial copy of `world`: every one applies, or the world is unchanged. */
export function applyDeltas(world: World, deltas: readonly Delta[]): ApplyResult {
  if (deltas.length === 0) return { ok: true, world };
  const next = new Map(world);
  for (let index = 0; index < deltas.length; index++) {
    const d = deltas[index]!;
    const current = next.get(d.id);
    const fail = (code: DeltaFailureCode, message: string): ApplyResult => ({
      ok: false,
      failure: { code, index, id: d.id, message: `delta ${index} (${d.op} ${d.id}): ${message}` },
    });
    switch (d.op) {
      case 'create':
        if (current)
          return fail('delta_create_on_existing', `${d.id} exists already (version ${current.version})`);
        next.set(d.id, { id: d.id, version: 1, value: d.value });
        break;
      case 'replace':
      case 'retract':
        if (!current) {
          return fail(
            d.op === 'replace' ? 'delta_replace_on_missing' : 'delta_retract_on_missing',
            `${d.id} does not exist`,
          );
        }
        if (current.version !== d.expectedVersion) {
          return fail(
            'delta_stale_version',
            `expected version ${d.expectedVersion}, but ${d.id} is at version ${current.version}`,
          );
        }
        if (d.op === 'replace') next.set(d.id, { id: d.id, version: current.version + 1, value: d.value });
        else next.delete(d.id);
        break;
    }
  }
  return { ok: true, world: next };
}

/** The world after a sequence of steps' deltas; the first failure stops the fold. */
export function foldWorld(steps: readonly (readonly Delta[])[], from: World = EMPTY_WORLD): ApplyResult {
  let world = from;
  for (const deltas of steps) {
    const r = applyDeltas(world, deltas);
    if (!r.ok) return r;
    world = r.world;
  }
  return { ok: true, world };
}
