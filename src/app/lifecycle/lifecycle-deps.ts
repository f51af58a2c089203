/**
 * What the lifecycle of workflows is made of (docs/lifecycle.md): the engine and store it works on,
 * the clocks, each tenant's gate thresholds and policy, and the shadow queue's drainer in this
 * process. Declared here, below every part of the lifecycle that takes them.
 */
import type { GateConfig } from '../../core/lifecycle/index.ts';
import type { Policy } from '../../core/policy/index.ts';
import type { Engine, ToolRegistry } from '../../engine/index.ts';
import type { Planner, Store } from '../../ports/index.ts';

/** Gate thresholds per tenant (partial: the rest are the defaults), or a function of the tenant. */
export type PromotionGatesConfig =
  | { readonly [tenant: string]: PartialGates }
  | ((tenant: string) => PartialGates | undefined);

export interface PartialGates {
  readonly shadow?: Partial<GateConfig['shadow']>;
  readonly live?: Partial<GateConfig['live']>;
  readonly autonomous?: Partial<GateConfig['autonomous']>;
}

export interface LifecycleDeps {
  readonly engine: Engine;
  readonly store: Store;
  readonly tools: ToolRegistry;
  readonly planner?: Planner;
  readonly now: () => string;
  readonly gates?: PromotionGatesConfig;
  readonly policyFor: (tenant: string) => Policy | undefined;
  /** The shadow queue's drainer in this process (shadow-drainer.ts): its leases' owner, its limits. */
  readonly shadowQueue: {
    readonly owner: string;
    readonly limit: (tenant: string) => number;
    readonly concurrency: number;
    /** Wall-clock ms. */
    readonly clock: () => number;
    /** Whether live work is in hand in this process (shadow work yields to it). */
    readonly busy: (quietMs: number) => boolean;
    readonly goneOwners?: (owners: readonly string[]) => Promise<readonly string[]>;
  };
  /** Told of background lifecycle work that failed (a shadow run, an automatic rollout step); never thrown. */
  readonly onBackgroundError?: (
    e: unknown,
    what: { tenant: string; workflowId?: string; liveRunId?: string },
  ) => void;
}
