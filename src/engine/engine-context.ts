/**
 * What the engine's parts share (engine.ts composes them): the store, the tools, the live
 * effects, the tenants' governance, the caches, how this process holds leases, and the walks it
 * runs. Made once by the Engine; each part (creating, starting, recovering, deciding, forking a
 * run, a person's controls) is a function of it, so none of them imports another through the
 * Engine, and the Engine is a facade over them.
 */
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { CheckpointWitness, Clock, LeaseChange, Store } from '../ports/index.ts';
import type { ActiveWalks } from './active-walks.ts';
import type { Effects } from './effects.ts';
import type { GovernanceConfig } from './governance.ts';
import type { PinnedVersions } from './pinned-versions.ts';
import type { ToolRegistry } from './tool-registry.ts';
import type { WritChains } from './writ-chains.ts';

/**
 * `inline`: the caller walks the run now, holding its lease; `enqueue`: the run is committed as
 * running with no lease and left for a worker (`keel worker`) to claim and walk.
 */
export type WalkMode = 'inline' | 'enqueue';

/**
 * How a new run is walked (`start`): as WalkMode, or `background`: its root is committed holding
 * this process's lease, the call returns once that is durable, and this process walks on at once
 * (the walk's promise goes to the caller's `onWalk`): no claim, no worker woken, no reload.
 */
export type StartWalk = WalkMode | 'background';

/** Told of a run walked in the background (`walk: 'background'`): the walk, until it stops. */
export type OnWalk = (runId: string, walking: Promise<unknown>) => void;

/** `background` without `onWalk` is a usage error: nobody would be told of the walk. */
export function checkOnWalk(o: { readonly walk?: StartWalk; readonly onWalk?: unknown }): void {
  if (o.walk === 'background' && typeof o.onWalk !== 'function')
    throw new KeelError(ErrorCode.usage, "walk: 'background' needs onWalk, told of each run's walk", {
      field: 'onWalk',
    });
}

export interface EngineContext {
  readonly store: Store;
  readonly tools: ToolRegistry;
  /** The live effects every live walk uses (delegating: `core.delegate` runs a child, delegate.ts). */
  readonly live: Effects;
  /** Per-tenant policies and trusted writ keys; absent, runs are checked by the core checks only. */
  readonly governance: GovernanceConfig | undefined;
  /** The checkpoint witness actions check the store's chain against (run-evidence.ts), if any. */
  readonly witness: CheckpointWitness | undefined;
  /** Writ chains by content: stored when a run is admitted, read when a run under a writ walks. */
  readonly writChains: WritChains;
  /** The versions runs are pinned to, cached by content. */
  readonly pinned: PinnedVersions;
  /** How new and recovered work is walked unless a call says otherwise. */
  readonly walkMode: WalkMode;
  readonly engineVersion: string;
  /** The lease this process's inline walks hold: its owner and how long it lasts. */
  readonly inlineLease: LeaseChange & { op: 'hold' };
  /** The wall clock leases are read against (never recorded). */
  readonly leaseClock: Clock;
  /** Lease owners whose processes are known to be gone (their leases are taken over at once). */
  readonly goneOwners: () => Promise<readonly string[]>;
  /** The walks this process runs now (active-walks.ts). */
  readonly walks: ActiveWalks;
}
