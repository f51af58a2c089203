/**
 * The walks this process runs inline, by run: each registered with an abort controller (a
 * person's cancel), a cut controller (an immediate pause) and a pause flag, so run-controls.ts can
 * stop a walk between steps or inside a tool call and wait for it to stop. A walk that holds its
 * run's lease has it renewed by the lease keeper while it lasts, and stops at a step boundary if
 * the lease is found lost. It never writes to a ledger itself: the walk does.
 */
import type { Planner, VersionRecord } from '../ports/index.ts';
import type { Effects } from './effects.ts';
import type { LeaseKeeper } from './lease-keeper.ts';
import type { RunWriter } from './run-writer.ts';
import type { ToolRegistry } from './tool-registry.ts';
import { type WalkOptions, walkRun } from './walk.ts';

/** A walk this engine runs in this process: how to abort it, and when it has stopped. */
export interface ActiveWalk {
  readonly controller: AbortController;
  /** Aborted by an immediate pause: cuts an idempotent tool's call in progress (walk.ts `interrupt`). */
  readonly cut: AbortController;
  readonly stopped: Promise<void>;
  /** Set by `pause`: the walk stops at its next step boundary (the step in progress finishes). */
  pause: boolean;
}

const NONE: readonly ActiveWalk[] = [];

export class ActiveWalks {
  /** Walks running in this process, by tenant and run id. */
  private readonly walks = new Map<string, Set<ActiveWalk>>();

  constructor(
    private readonly tools: ToolRegistry,
    private readonly planner: Planner | undefined,
    /** Renews the leases of the walks this process holds (`walk(..., leased = true)`). */
    private readonly keeper: LeaseKeeper,
  ) {}

  /** Whether this process is walking the run now. */
  walking(tenant: string, runId: string): boolean {
    return (this.walks.get(walkKey(tenant, runId))?.size ?? 0) > 0;
  }

  /** The walks of the run running in this process now (none: an empty list). */
  of(tenant: string, runId: string): readonly ActiveWalk[] {
    const set = this.walks.get(walkKey(tenant, runId));
    return set ? [...set] : NONE;
  }

  /**
   * Walks a run inline, registered so that `cancel` in this process can abort it: the walk gets an
   * abort signal (passed on to the tool it calls) and is unregistered when it stops, however it stops.
   * `leased`: this process holds the run's lease (not a worker, which renews its own), so the
   * keeper renews it while the walk lasts, and a lease found lost stops the walk at a step boundary.
   */
  async walk(
    w: RunWriter,
    version: VersionRecord,
    fx: Effects,
    o: WalkOptions,
    leased = false,
  ): Promise<void> {
    const key = walkKey(w.state.tenant, w.state.runId);
    const controller = new AbortController();
    let stop!: () => void;
    const active: ActiveWalk = {
      controller,
      cut: new AbortController(),
      stopped: new Promise<void>((r) => (stop = r)),
      pause: false,
    };
    const set = this.walks.get(key) ?? new Set<ActiveWalk>();
    set.add(active);
    this.walks.set(key, set);
    const lease = leased ? this.keeper.hold(w.state.runId, () => w.durable) : undefined;
    try {
      // A caller's own signal (if any) still stops the walk too.
      const signal = o.signal ? AbortSignal.any([o.signal, controller.signal]) : controller.signal;
      const shouldStop = () => active.pause || lease?.lost === true || (o.shouldStop?.() ?? false);
      await walkRun(w, version, this.tools, fx, {
        ...o,
        signal,
        interrupt: active.cut.signal,
        shouldStop,
        ...(this.planner ? { planner: this.planner } : {}),
      });
    } finally {
      if (lease) this.keeper.release(lease);
      set.delete(active);
      if (set.size === 0 && this.walks.get(key) === set) this.walks.delete(key);
      stop();
    }
  }
}

function walkKey(tenant: string, runId: string): string {
  return `${tenant}\u0000${runId}`;
}
