/**
 * `keel.events`: delivering a tenant's events. An event is validated, named by `(source, id)` and
 * routed once (event-deliveries.ts, routing.ts): its first delivery starts one run per workflow
 * whose LIVE version's trigger takes it (a rollout's bucket choosing between two), with its SHADOW
 * versions' comparisons queued in the same transaction as each live run's root; a redelivery
 * answers those runs, and one with other content is a recorded event_conflict. This is the hot
 * path (emit → route → start): it does the delivery and the starts, nothing more, and leaves the
 * shadow runs and automatic rollout steps to the background.
 */
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { RunSummary } from '../engine/index.ts';
import type { DeliveredEvent, EventConflict, ShadowQueue } from '../ports/index.ts';
import { type EventDeliveries, LIBRARY_CHANNEL } from './event-deliveries.ts';
import type { Lifecycle } from './lifecycle/lifecycle.ts';
import type { LiveWork } from './lifecycle/live-activity.ts';
import { type StartOptions, startOptions } from './start-options.ts';

export interface EmitResult {
  readonly eventId: string;
  /** The event's source: as given, or the channel's name when it gave none. */
  readonly source: string;
  readonly runs: readonly (RunSummary & { created: boolean })[];
  /** Set when the event was delivered before with the same content: these are its first runs. */
  readonly redelivery?: true;
  /** With `redelivery`: when the event was first delivered. */
  readonly firstDeliveredAt?: string;
}

export interface EmitOptions extends StartOptions {
  /**
   * The channel the event came through: its source when it gives none (`cli` for `keel emit`,
   * `http` for `POST /api/events`; `library` by default).
   */
  readonly channel?: string;
}

export interface EventsHandle {
  /**
   * Delivers an event, named by `(source, id)` (`o.channel` is its source when it gives none). Its
   * first delivery starts one run per workflow whose LIVE or AUTONOMOUS version the event triggers
   * (during a rollout, the version the event's bucket chooses); SHADOW versions run beside it,
   * simulated. A redelivery with the same content answers those runs (`redelivery: true`); one
   * with other content throws event_conflict, starts nothing and is recorded (`conflicts`).
   */
  emit(tenant: string, value: unknown, o?: EmitOptions): Promise<EmitResult>;
  /** The first delivery of the event `(source, id)`: its content hash and the runs it chose. */
  delivered(tenant: string, source: string, eventId: string): Promise<DeliveredEvent | undefined>;
  /** Redeliveries refused as event_conflict, the most recent first (one per distinct content, counted). */
  conflicts(
    tenant: string,
    q?: { source?: string; eventId?: string; limit?: number },
  ): Promise<EventConflict[]>;
}

export interface EventsDeps {
  readonly deliveries: EventDeliveries;
  /** Where a SHADOW version's lone runs are queued (an event no live version takes). */
  readonly shadowQueue: ShadowQueue;
  readonly lifecycle: Pick<Lifecycle, 'drainer' | 'shadows' | 'tick'>;
  readonly live: LiveWork;
}

export function eventsHandle(d: EventsDeps): EventsHandle {
  const { deliveries, lifecycle, live } = d;
  return {
    /**
     * Delivers an event: validated, named by `(source, id)` (source `channel` when it gives none),
     * and on its first delivery one run started per matching workflow (its latest LIVE or
     * AUTONOMOUS version, or the version a rollout's bucket chooses). A redelivery with the same
     * content answers those runs (`redelivery`), one with other content is event_conflict and starts
     * nothing (event-deliveries.ts). With `writ` each run executes under it.
     */
    emit: (tenant: string, value: unknown, o: EmitOptions = {}): Promise<EmitResult> =>
      live(async () => {
        const channel = o.channel ?? LIBRARY_CHANNEL;
        if (typeof channel !== 'string' || channel === '' || channel.length > 512)
          throw new KeelError(ErrorCode.usage, 'channel: expected 1-512 characters', { field: 'channel' });
        const so = startOptions(o);
        const delivery = await deliveries.deliver(tenant, value, channel, so.writ ? { writ: so.writ } : {});
        const { event } = delivery;
        const runs: (RunSummary & { created: boolean })[] = [];
        for (const routed of delivery.runs) {
          const { run, created, queued } = await deliveries.start(tenant, routed, event, so);
          runs.push({ ...run, created });
          if (created) lifecycle.drainer.queued(queued);
          if (routed.split) lifecycle.tick(tenant, routed.workflowId);
        }
        // The event reaches the runs waiting for its type too (a wait for an event): it may end their waits.
        await deliveries.arrive(tenant, delivery, so.walk);
        // Every SHADOW version is compared on every event of its workflow: where no live version
        // starts, the candidates whose triggers match run alone (queued, off this path).
        for (const u of delivery.untaken) {
          const alone = lifecycle.shadows.workAlone(u.live, event, u.candidates);
          if (alone.length > 0) {
            await d.shadowQueue.enqueueShadowWork(alone);
            lifecycle.drainer.queued(alone);
          }
        }
        return {
          eventId: event.id,
          source: event.source,
          runs,
          ...(delivery.redeliveryOf !== undefined
            ? { redelivery: true as const, firstDeliveredAt: delivery.redeliveryOf }
            : {}),
        };
      }),
    /** The first delivery of the event `(source, id)`: its content's hash and the runs it chose. */
    delivered: deliveries.get,
    /** Redeliveries refused as event_conflict, the most recent first (one per content, counted). */
    conflicts: deliveries.conflicts,
  };
}
