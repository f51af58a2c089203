/**
 * Delivering an event (`keel emit`, `POST /api/events`, `keel.events.emit`): `(tenant, source, id)`
 * names it (DESIGN invariant 15). The first delivery is routed to every workflow whose LIVE or
 * AUTONOMOUS version takes it, and its name is claimed in the event index with the runs routing
 * chose (none is an answer too) before any of them starts. A redelivery with the same content gets
 * those runs again — starting one here only when the first delivery claimed the event and stopped
 * (a crash) before starting it; one with other content is recorded as a conflict and refused
 * (`event_conflict`): it never starts a run. A run it starts has its SHADOW versions' comparisons
 * queued in the transaction of its root (`shadowWork`); the caller (events-handle.ts) tells the drainer,
 * queues the comparisons of candidates that would start where no live version does, and steps
 * rollouts. An event of a type some version waits for is kept as an arrival and wakes the runs
 * waiting for it (`arrive`, ports/event-waits.ts): an event can both start runs and end waits.
 */

import type { Digest } from '../core/canonical/index.ts';
import { ErrorCode, isKeelError, KeelError } from '../core/errors.ts';
import type { EventRecord } from '../core/ledger/index.ts';
import { deliveredEvent, differingFields, eventContent, parseEvent } from '../core/run/index.ts';
import { excerpt, isEventWait, isWaitStep, type WorkflowSpec, walkSteps } from '../core/spec/index.ts';
import { type Engine, type RunSummary, summaryOf } from '../engine/index.ts';
import type {
  DeliveredEvent,
  EventConflict,
  RoutedRun,
  ShadowWork,
  Store,
  TriggerDisagreement,
  VersionRecord,
} from '../ports/index.ts';
import type { Route } from './lifecycle/routing.ts';
import type { StartWith } from './start-options.ts';

/** The channel whose name an event delivered without a source takes in code (`keel.events.emit`). */
export const LIBRARY_CHANNEL = 'library';

/** A run a delivery chose: as the index keeps it, and (first delivery) the versions routing read. */
export interface DeliveryRun extends RoutedRun {
  /** The version to start (first delivery); absent on a redelivery, which reads it when it must. */
  readonly record?: VersionRecord;
  /** The workflow's versions as routing read them (first delivery). */
  readonly versions?: readonly VersionRecord[];
  /** The run was started before under another form of the event (routing found it): never start it. */
  readonly existing?: boolean;
}

/** A workflow no live version of which takes the event, with the SHADOW versions it has. */
export interface Untaken {
  /** The version events go to now (the newest LIVE or AUTONOMOUS): what a candidate is compared with. */
  readonly live: VersionRecord;
  readonly candidates: readonly VersionRecord[];
}

export interface Delivery {
  /** The event as named and routed (its source defaulted to the channel's name when it gave none). */
  readonly event: EventRecord;
  readonly runs: readonly DeliveryRun[];
  /** First delivery only: the workflows with SHADOW versions whose live version did not take it. */
  readonly untaken: readonly Untaken[];
  /** Set when the event was delivered before (same content): when that was. */
  readonly redeliveryOf?: string;
  /** When the event was (first) delivered: its arrival time for waits for events. */
  readonly deliveredAt: string;
  /** First delivery only, when it started no run: why (the unrouted inbox keeps it). */
  readonly unrouted?: Unrouted;
  /** Whether a version of the tenant waits for events of its type, read with routing's versions. */
  readonly waited?: boolean;
}

/** Why an event started no run, in a code and in words. */
export interface Unrouted {
  readonly reason: 'no_route' | 'rollout_untaken';
  readonly detail: string;
}

/** Why routing started nothing: a rollout's bucket chose a version whose trigger refused it, or no trigger took it. */
function whyUnrouted(disagreements: readonly TriggerDisagreement[]): Unrouted {
  const lost = disagreements.filter((x) => x.taken === null);
  if (lost.length === 0)
    return { reason: 'no_route', detail: 'no LIVE or AUTONOMOUS version of any workflow takes it' };
  return {
    reason: 'rollout_untaken',
    detail: lost
      .map(
        (x) =>
          `workflow ${x.workflowId}'s rollout v${x.from} -> v${x.to} chose v${x.chosen}, whose trigger does not take it`,
      )
      .join('; '),
  };
}

/** What starting a delivery's run gives: the run, and the comparisons queued with a new one. */
export interface StartedRun {
  readonly run: RunSummary;
  readonly created: boolean;
  readonly queued: readonly ShadowWork[];
}

/** How many runs an arrival wakes that its delivery walks itself (inline); workers walk the rest. */
export const MAX_INLINE_WAKES = 20;

/** Whether a spec has a wait for events of `type`, anywhere in its steps. */
function waitsFor(spec: WorkflowSpec, type: string): boolean {
  let found = false;
  walkSteps(spec, (st) => {
    if (isWaitStep(st) && isEventWait(st.wait) && st.wait.event === type) found = true;
  });
  return found;
}

export function eventDeliveries(d: {
  readonly store: Store;
  readonly engine: Engine;
  readonly route: Route;
  /** The comparisons to queue with a live run's root: its SHADOW versions on the same event. */
  readonly shadowWork: (
    live: { runId: string; version: VersionRecord },
    event: EventRecord,
    candidates: readonly VersionRecord[],
  ) => ShadowWork[];
  readonly now: () => string;
  /** Told when the walk of a run an arrival woke fails for another reason than another walker. */
  readonly onWakeError?: (e: unknown, what: { tenant: string; runId: string }) => void;
}) {
  const { store, engine } = d;

  function conflictError(event: EventRecord, first: DeliveredEvent, c: EventConflict): KeelError {
    const runs = first.runs.map((r) => r.runId);
    const fields = c.fields.length > 0 ? c.fields.join(', ') : 'the content';
    return new KeelError(
      ErrorCode.eventConflict,
      `event ${JSON.stringify(excerpt(event.id, 80))} of source ${JSON.stringify(excerpt(event.source, 80))} was delivered at ${first.deliveredAt} with other content (${fields} ${c.fields.length === 1 ? 'differs' : 'differ'}): ${runs.length === 0 ? 'it started no run' : `its ${runs.length === 1 ? 'run stands' : `${runs.length} runs stand`}`}; this delivery started nothing and is recorded as a conflict (keel events conflicts)`,
      {
        source: event.source,
        eventId: event.id,
        fields: c.fields,
        firstDeliveredAt: first.deliveredAt,
        runs,
        deliveries: c.count,
      },
    );
  }

  /**
   * Routes `event` to every workflow of the tenant with a version events go to: the runs routing
   * chose, the workflows whose live version did not take it (with SHADOW versions), the rollouts'
   * trigger disagreements, and when it started nothing, why (unrouted.ts keeps it).
   */
  async function routeAll(tenant: string, event: EventRecord, earlier: readonly EventRecord[], at: string) {
    const byWorkflow = new Map<string, VersionRecord[]>();
    const all = await store.registry.listVersions(tenant);
    for (const v of all) {
      const list = byWorkflow.get(v.workflowId);
      if (list) list.push(v);
      else byWorkflow.set(v.workflowId, [v]);
    }
    const runs: DeliveryRun[] = [];
    const untaken: Untaken[] = [];
    const disagreements: TriggerDisagreement[] = [];
    for (const [workflowId, versions] of byWorkflow) {
      // Only workflows with a version events go to are routed (a rollout's two LIVE versions split).
      if (!versions.some((v) => v.status === 'LIVE' || v.status === 'AUTONOMOUS')) continue;
      const routed = await d.route(tenant, workflowId, versions, event, earlier);
      if (routed.disagreement)
        disagreements.push({
          tenant,
          workflowId,
          source: event.source,
          eventId: event.id,
          ...routed.disagreement,
          at,
        });
      const t = routed.take;
      if (!t) {
        const candidates = versions.filter((v) => v.status === 'SHADOW');
        const live = versions.filter((v) => v.status === 'LIVE' || v.status === 'AUTONOMOUS').at(-1);
        if (live && candidates.length > 0) untaken.push({ live, candidates });
        continue;
      }
      runs.push({
        workflowId,
        version: t.version.version,
        runId: t.runId,
        ...(t.split ? { split: t.split } : {}),
        record: t.version,
        versions,
        ...(t.before ? { existing: true } : {}),
      });
    }
    return {
      runs,
      untaken,
      disagreements,
      unrouted: runs.length === 0 ? whyUnrouted(disagreements) : undefined,
      // The same versions answer whether anyone waits for this type (`arrive`): no second read.
      waited: all.some((v) => waitsFor(v.spec, event.type)),
    };
  }

  return {
    /**
     * Validates `value`, names it (its source, or `channel`), routes a first delivery and claims its
     * name; answers a same-content redelivery with the first delivery's runs, and refuses one with
     * other content (event_conflict), recorded. Starts nothing. A `writ` the runs would be refused
     * under (writ_refused) is refused before anything is written.
     */
    async deliver(
      tenant: string,
      value: unknown,
      channel: string,
      o: { readonly writ?: readonly unknown[] } = {},
    ): Promise<Delivery> {
      const { event, earlier } = deliveredEvent(parseEvent(value, tenant), channel);
      const at = d.now();
      const { runs, untaken, disagreements, unrouted, waited } = await routeAll(tenant, event, earlier, at);
      // A writ the runs would be refused under refuses the delivery before its name is claimed.
      if (o.writ !== undefined && runs.length > 0) await engine.checkWrit(o.writ, tenant);
      const content = eventContent(event);
      const claim = await store.events.claimEvent(
        {
          tenant,
          source: event.source,
          eventId: event.id,
          ...content,
          runs: runs.map(({ workflowId, version, runId, split }) => ({
            workflowId,
            version,
            runId,
            ...(split ? { split } : {}),
          })),
          deliveredAt: at,
        },
        disagreements,
      );
      if (claim.state === 'first')
        return { event, runs, untaken, deliveredAt: at, waited, ...(unrouted ? { unrouted } : {}) };
      const { first } = claim;
      if (first.eventHash === content.eventHash)
        return {
          event,
          runs: first.runs,
          untaken: [],
          redeliveryOf: first.deliveredAt,
          waited,
          deliveredAt: first.deliveredAt,
        };
      const conflict = await store.events.recordEventConflict({
        tenant,
        source: event.source,
        eventId: event.id,
        firstHash: first.eventHash,
        eventHash: content.eventHash,
        fields: differingFields(first, content),
        at,
      });
      throw conflictError(event, first, conflict);
    },

    /**
     * Starts (or finds) a run a delivery chose. On a redelivery the run is found; one the first
     * delivery never started (it stopped after claiming the event) is started now, on the version
     * and split it recorded, and so under the same id.
     */
    async start(tenant: string, r: DeliveryRun, event: EventRecord, o: StartWith): Promise<StartedRun> {
      /** Starts `record`'s run, its SHADOW versions' comparisons queued in the transaction of its root. */
      const begin = async (record: VersionRecord, candidates: readonly VersionRecord[]) => {
        let queued: readonly ShadowWork[] = [];
        const { run, created } = await engine.start(record, event, {
          ...o,
          ...(r.split ? { split: r.split } : {}),
          ...(candidates.length > 0
            ? {
                shadowWork: (runId: Digest) => {
                  queued = d.shadowWork({ runId, version: record }, event, candidates);
                  return queued;
                },
              }
            : {}),
        });
        return { run, created, queued: created ? queued : [] };
      };
      const shadowsOf = (versions: readonly VersionRecord[]) => versions.filter((v) => v.status === 'SHADOW');
      if (r.record && !r.existing) return begin(r.record, shadowsOf(r.versions ?? []));
      const found = await store.runs.getRun(tenant, r.runId);
      if (found) return { run: summaryOf(found), created: false, queued: [] };
      const record = await store.registry.getVersion(tenant, r.workflowId, r.version);
      if (!record)
        throw new KeelError(
          ErrorCode.notFound,
          `workflow ${r.workflowId} v${r.version}, which event ${JSON.stringify(excerpt(event.id, 80))} was routed to, is not in this store`,
          { workflowId: r.workflowId, version: r.version },
        );
      return begin(record, shadowsOf(await store.registry.listVersions(tenant, r.workflowId)));
    },

    /**
     * An event delivered (first time or again, same content) reaches the runs waiting for it: kept
     * as an arrival if any version of the tenant waits for its type (so a wait that begins later
     * still finds it), and the tenant's runs waiting for that type are woken (due now). Walked here
     * at once (inline), at most `MAX_INLINE_WAKES` of them, unless `walk` is `enqueue`: then (and
     * for the rest) workers walk them. Returns the runs woken.
     */
    async arrive(
      tenant: string,
      delivery: Pick<Delivery, 'event' | 'deliveredAt' | 'waited'>,
      walk: 'inline' | 'enqueue' = engine.walkMode,
    ): Promise<readonly string[]> {
      const { event } = delivery;
      const waited =
        delivery.waited ??
        (await store.registry.listVersions(tenant)).some((v) => waitsFor(v.spec, event.type));
      if (!waited) return [];
      // It arrived when it was delivered: before any run it started, so none of those takes it.
      const woken = await store.waits.arrive(event, Date.parse(delivery.deliveredAt));
      if (walk === 'inline')
        // A worker may have it already: it walks it then, and this walk finds nothing to do.
        for (const r of woken.slice(0, MAX_INLINE_WAKES))
          await engine.recover(r.tenant, r.runId).catch((e) => {
            // Another walker holding or moving the run is expected; anything else is told.
            if (!isKeelError(e) || (e.code !== ErrorCode.runState && e.code !== ErrorCode.headConflict))
              d.onWakeError?.(e, { tenant: r.tenant, runId: r.runId });
          });
      return woken.map((r) => r.runId);
    },

    /**
     * Routes an event kept as unrouted again (`value`: the event as first delivered). When routing
     * now chooses runs, they are stored as the event's runs in the event index, atomically and only
     * while it names none, so the `(tenant, source, id)` identity holds: of concurrent redeliveries
     * one chooses the runs and all answer them. An event the index does not know (never claimed)
     * is claimed here as a first delivery. Starts nothing (`start` does).
     */
    async reroute(
      tenant: string,
      value: unknown,
    ): Promise<{
      readonly event: EventRecord;
      readonly runs: readonly DeliveryRun[];
      readonly untaken: readonly Untaken[];
      readonly unrouted?: Unrouted;
    }> {
      const { event, earlier } = deliveredEvent(parseEvent(value, tenant), LIBRARY_CHANNEL);
      const at = d.now();
      const { runs, untaken, disagreements, unrouted } = await routeAll(tenant, event, earlier, at);
      if (runs.length === 0) return { event, runs, untaken, ...(unrouted ? { unrouted } : {}) };
      const routed = runs.map(({ workflowId, version, runId, split }) => ({
        workflowId,
        version,
        runId,
        ...(split ? { split } : {}),
      }));
      let stored = await store.events.rerouteEvent(tenant, event.source, event.id, routed);
      if (!stored) {
        const content = eventContent(event);
        const claim = await store.events.claimEvent(
          { tenant, source: event.source, eventId: event.id, ...content, runs: routed, deliveredAt: at },
          disagreements,
        );
        if (claim.state === 'first') return { event, runs, untaken };
        stored = claim.first;
      }
      const mine =
        stored.runs.length === runs.length && stored.runs.every((r, i) => r.runId === runs[i]!.runId);
      return mine ? { event, runs, untaken } : { event, runs: stored.runs, untaken: [] };
    },

    /** The first delivery of the tenant's event `(source, id)`, if it was delivered. */
    get: (tenant: string, source: string, eventId: string) =>
      store.events.getDeliveredEvent(tenant, source, eventId),

    /** The tenant's conflicting redeliveries, the most recent first. */
    async conflicts(
      tenant: string,
      q: { source?: string; eventId?: string; limit?: number } = {},
    ): Promise<EventConflict[]> {
      if (q.limit !== undefined && (!Number.isInteger(q.limit) || q.limit < 1 || q.limit > 500))
        throw new KeelError(ErrorCode.usage, `limit: expected a whole number from 1 to 500, got ${q.limit}`, {
          field: 'limit',
        });
      return store.events.listEventConflicts(tenant, q);
    },
  };
}

export type EventDeliveries = ReturnType<typeof eventDeliveries>;
