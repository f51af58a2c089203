/**
 * The lifecycle of workflows in one process (docs/lifecycle.md): a version earns each step toward
 * autonomy with evidence. This module makes its parts and hands them out: SHADOW versions run beside
 * live runs (shadows.ts) through the durable shadow queue (shadow-drainer.ts); gates count and judge
 * the evidence of a move (gates.ts); promotion moves a version one step (promotions.ts); rollouts
 * split traffic between two LIVE versions (rollouts.ts); routing chooses an event's version
 * (routing.ts). `handle` is `keel.lifecycle` (lifecycle-handle.ts); the rest is for Keel's own
 * event deliveries. Only a person may promote.
 */
import { Gates } from './gates.ts';
import type { LifecycleDeps } from './lifecycle-deps.ts';
import { type LifecycleHandle, lifecycleHandle } from './lifecycle-handle.ts';
import { Rollouts } from './rollouts.ts';
import { eventRouter, type Route } from './routing.ts';
import { ShadowDrainer } from './shadow-drainer.ts';
import { Shadows } from './shadows.ts';

export type { LifecycleDeps, PartialGates, PromotionGatesConfig } from './lifecycle-deps.ts';

export interface Lifecycle {
  /** `keel.lifecycle`. */
  readonly handle: LifecycleHandle;
  /** The shadow work a live run's root queues, and a SHADOW version's lone runs. */
  readonly shadows: Shadows;
  /** This process's drainer of the shadow queue. */
  readonly drainer: ShadowDrainer;
  /** Which version of a workflow an event starts (on the path of every delivery). */
  readonly route: Route;
  /** Judges the workflow's automatic rollout after an event it split, off the event's path. */
  tick(tenant: string, workflowId: string): void;
}

export function createLifecycle(d: LifecycleDeps): Lifecycle {
  const { engine, store } = d;
  /** More live work to yield to (a `keel worker`'s walks), added by `shadowQueue.run`. */
  const extraBusy: (() => boolean)[] = [];
  const shadows = new Shadows({ engine, store, now: d.now, wallClock: d.shadowQueue.clock });
  const drainer = new ShadowDrainer({
    shadows,
    store,
    ...d.shadowQueue,
    busy: (quietMs) => d.shadowQueue.busy(quietMs) || extraBusy.some((b) => b()),
    ...(d.onBackgroundError ? { onError: d.onBackgroundError } : {}),
  });
  const gates = new Gates(d, shadows);
  const rollouts = new Rollouts({
    registry: store.registry,
    runs: store.runs,
    events: store.events,
    gates,
    now: d.now,
    ...(d.onBackgroundError ? { onBackgroundError: d.onBackgroundError } : {}),
  });
  return {
    handle: lifecycleHandle({
      d,
      shadows,
      drainer,
      gates,
      rollouts,
      yieldTo: (busy) => extraBusy.push(busy),
    }),
    shadows,
    drainer,
    route: eventRouter(store.registry, store.runs),
    tick: (tenant, workflowId) => rollouts.tick(tenant, workflowId),
  };
}
