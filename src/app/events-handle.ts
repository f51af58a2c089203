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
import type { EventRecord } from '../core/ledger/index.ts';
import type { RunSummary } from '../engine/index.ts';
import type { DeliveredEvent, EventConflict, ShadowQueue, UnroutedEvent } from '../ports/index.ts';
import { type DeliveryRun, type EventDeliveries, LIBRARY_CHANNEL, type Untaken } from './event-deliveries.ts';
import type { Lifecycle } from './lifecycle/lifecycle.ts';
import type { LiveWork } from './lifecycle/live-activity.ts';
import { type StartOptions, type StartWith, startOptions } from './start-options.ts';
import type { FailedDelivery, UnroutedInboxHandle } from './unrouted.ts';

export interface EmitResult {
  readonly eventId: string;
  /** The event's source: as given, or the channel's name when it gave none. */
  readonly source: string;
  readonly runs: readonly (RunSummary & { created: boolean })[];
  /** Set when the event was delivered before with the same content: these are its first runs. */
  readonly redelivery?: true;
  /** With `redelivery`: when the event was first delivered. */
  readonly firstDeliveredAt?: string;
  /** Its first delivery started no run: it is kept in the unrouted inbox under this id, with why. */
  readonly unrouted?: { readonly id: string; readonly reason: string; readonly detail: string };
}

/** What redelivering an unrouted event did. */
export interface RedeliverResult {
  /** The inbox entry. */
  readonly id: string;
  /** `redelivered`: it started runs (or maps to an event kept anew) and left the inbox; `unrouted`: it stays. */
  readonly state: 'redelivered' | 'unrouted';
  readonly source: string;
  readonly eventId: string | null;
  readonly runs: readonly (RunSummary & { created: boolean })[];
  /** Why it stays (state `unrouted`), or, for a delivery mapped anew that no workflow takes, the entry it is kept as. */
  readonly unrouted?: { readonly id: string; readonly reason: string; readonly detail: string };
}

export interface RedeliverOptions extends StartOptions {
  /** Maps a hook delivery again (`keel serve` maps with the hooks it serves); needed for mapping_failed. */
  readonly remap?: (tenant: string, d: FailedDelivery) => unknown;
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
  /** The tenant's unrouted inbox (docs/events.md), the most recently received first: waiting entries by default. */
  unrouted(
    tenant: string,
    q?: { state?: 'waiting' | 'redelivered' | 'all'; limit?: number },
  ): Promise<UnroutedEvent[]>;
  /** One entry of the tenant's unrouted inbox (not_found when none). */
  unroutedEvent(tenant: string, id: string): Promise<UnroutedEvent>;
  /**
   * Routes an unrouted event again through the one emit path, under the same `(source, id)`: when
   * it now starts runs, they become the event's runs and the entry leaves the inbox, marked
   * redelivered with their ids; otherwise it stays, with the reason now. A hook delivery whose
   * mapping failed is mapped again with `o.remap`, then emitted.
   */
  redeliver(tenant: string, id: string, o?: RedeliverOptions): Promise<RedeliverResult>;
  /** Keeps an authenticated hook delivery whose mapping failed (hook-routes.ts). */
  keepFailedDelivery(tenant: string, d: FailedDelivery, detail: string): Promise<UnroutedEvent>;
}

export interface EventsDeps {
  readonly deliveries: EventDeliveries;
  /** Where a SHADOW version's lone runs are queued (an event no live version takes). */
  readonly shadowQueue: ShadowQueue;
  readonly lifecycle: Pick<Lifecycle, 'drainer' | 'shadows' | 'tick'>;
  readonly live: LiveWork;
  readonly inbox: UnroutedInboxHandle;
  /** The wall clock's time (ISO-8601), for the inbox's marks. */
  readonly now: () => string;
}

export function eventsHandle(d: EventsDeps): EventsHandle {
  const { deliveries, lifecycle, live, inbox } = d;

  /** Starts a delivery's runs, then the SHADOW candidates that run alone where no live version took it. */
  async function startAll(
    tenant: string,
    event: EventRecord,
    routed: readonly DeliveryRun[],
    untaken: readonly Untaken[],
    so: StartWith,
  ) {
    const runs: (RunSummary & { created: boolean })[] = [];
    for (const r of routed) {
      const { run, created, queued } = await deliveries.start(tenant, r, event, so);
      runs.push({ ...run, created });
      if (created) lifecycle.drainer.queued(queued);
      if (r.split) lifecycle.tick(tenant, r.workflowId);
    }
    // Every SHADOW version is compared on every event of its workflow: where no live version
    // starts, the candidates whose triggers match run alone (queued, off this path).
    for (const u of untaken) {
      const alone = lifecycle.shadows.workAlone(u.live, event, u.candidates);
      if (alone.length > 0) {
        await d.shadowQueue.enqueueShadowWork(alone);
        lifecycle.drainer.queued(alone);
      }
    }
    return runs;
  }

  const handle: EventsHandle = {
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
        // Only the scheduler names fires: an event from elsewhere may not claim a schedule's source.
        const source = (value as { source?: unknown } | null)?.source;
        if (typeof source === 'string' && source.startsWith('schedule:') && !channel.startsWith('schedule'))
          throw new KeelError(
            ErrorCode.eventInvalid,
            'source: schedule:… names schedule fires, emitted by the scheduler only',
            {
              field: 'source',
            },
          );
        const so = startOptions(o);
        const delivery = await deliveries.deliver(tenant, value, channel, so.writ ? { writ: so.writ } : {});
        const { event } = delivery;
        const runs = await startAll(tenant, event, delivery.runs, delivery.untaken, so);
        // The event reaches the runs waiting for its type too (a wait for an event): it may end their waits.
        // Runs woken from a wait are walked here (inline) or by the workers (enqueue, background).
        const woken = await deliveries.arrive(
          tenant,
          delivery,
          so.walk === 'background' ? 'enqueue' : so.walk,
        );
        // An event nobody takes is kept, never dropped (docs/events.md); one that reached waiting runs was taken.
        const kept =
          delivery.unrouted &&
          woken.length === 0 &&
          (await inbox.keepEvent(tenant, event, delivery.unrouted));
        return {
          eventId: event.id,
          source: event.source,
          runs,
          ...(delivery.redeliveryOf !== undefined
            ? { redelivery: true as const, firstDeliveredAt: delivery.redeliveryOf }
            : {}),
          ...(kept ? { unrouted: { id: kept.id, reason: kept.reason, detail: kept.detail } } : {}),
        };
      }),
    /** The first delivery of the event `(source, id)`: its content's hash and the runs it chose. */
    delivered: deliveries.get,
    /** Redeliveries refused as event_conflict, the most recent first (one per content, counted). */
    conflicts: deliveries.conflicts,
    unrouted: inbox.list,
    unroutedEvent: inbox.get,
    keepFailedDelivery: inbox.keepDelivery,
    redeliver: (tenant: string, id: string, o: RedeliverOptions = {}): Promise<RedeliverResult> =>
      live(async () => {
        const entry = await inbox.get(tenant, id);
        const so = startOptions(o);
        const now = d.now;
        if (entry.redelivered) {
          // Redelivered before: answer its runs (a retry of a redelivery starts nothing new).
          const runs: (RunSummary & { created: boolean })[] = [];
          const ev =
            entry.eventId === null ? undefined : await deliveries.get(tenant, entry.source, entry.eventId);
          for (const r of ev?.runs ?? []) {
            const { run } = await deliveries.start(tenant, r, entry.content as EventRecord, so);
            runs.push({ ...run, created: false });
          }
          return { id, state: 'redelivered', source: entry.source, eventId: entry.eventId, runs };
        }
        if (entry.reason === 'mapping_failed') {
          if (!o.remap)
            throw new KeelError(
              ErrorCode.usage,
              `unrouted event ${id.slice(0, 80)} is a hook delivery whose mapping failed: it is mapped again with the hooks file (keel events redeliver --hooks <file>, or keel serve's POST /api/events/unrouted/<id>/redeliver)`,
              { id, reason: entry.reason },
            );
          const failed = entry.content as FailedDelivery;
          const value = o.remap(tenant, failed);
          const r = await handle.emit(tenant, value, { ...o, channel: entry.source });
          await inbox.mark(
            tenant,
            id,
            r.runs.map((x) => x.runId),
            now(),
          );
          return {
            id,
            state: 'redelivered',
            source: r.source,
            eventId: r.eventId,
            runs: r.runs,
            ...(r.unrouted ? { unrouted: r.unrouted } : {}),
          };
        }
        const rerouted = await deliveries.reroute(tenant, entry.content);
        if (rerouted.runs.length === 0) {
          const why = rerouted.unrouted ?? { reason: entry.reason, detail: entry.detail };
          return {
            id,
            state: 'unrouted',
            source: entry.source,
            eventId: entry.eventId,
            runs: [],
            unrouted: { id, reason: why.reason, detail: why.detail },
          };
        }
        const runs = await startAll(tenant, rerouted.event, rerouted.runs, rerouted.untaken, so);
        await inbox.mark(
          tenant,
          id,
          runs.map((x) => x.runId),
          now(),
        );
        return { id, state: 'redelivered', source: entry.source, eventId: entry.eventId, runs };
      }),
  };
  return handle;
}
