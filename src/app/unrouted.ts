/**
 * The inbox of unrouted events (docs/events.md): what keeps an event no workflow took, or a hook
 * delivery whose mapping failed after authentication, in its tenant's inbox with the reason —
 * named by content (the event's `(source, id)`, or the hook and the body's hash), so a retry is one
 * entry, counted — and applies the limits (age, size), counting what they drop: nothing leaves the
 * inbox silently. Redelivery lives in events-handle.ts, through the one emit path.
 */
import { hashOf } from '../core/canonical/index.ts';
import { ErrorCode, KeelError } from '../core/errors.ts';
import { type HookSpec, mapDelivery, readDeliveryBody } from '../core/hooks/index.ts';
import type { EventRecord } from '../core/ledger/index.ts';
import type { KeptUnrouted, Store, UnroutedEvent, UnroutedReason } from '../ports/index.ts';

/** The default limits: 30 days, 10,000 entries per tenant. */
export const UNROUTED_DEFAULTS = { maxEntries: 10_000, retentionDays: 30 } as const;

export interface UnroutedConfig {
  /** Entries per tenant (oldest dropped first past it); default 10,000. */
  readonly maxEntries?: number;
  /** Days an entry is kept; default 30. */
  readonly retentionDays?: number;
}

/** Told what the inbox kept and what its limits dropped (metrics.ts counts it). */
export interface UnroutedCounter {
  kept(reason: UnroutedReason): void;
  dropped(limit: 'age' | 'size', n: number): void;
}

/** The id an unrouted event is kept under: its tenant, source and id. */
export const unroutedEventId = (tenant: string, source: string, eventId: string): string =>
  hashOf({ kind: 'event', tenant, source, eventId });

/** A hook delivery whose mapping failed: what redelivery maps again. */
export interface FailedDelivery {
  readonly hook: string;
  /** The body as received (UTF-8 text). */
  readonly body: string;
  /** The headers the mapping may read (names lower-cased), without the hook's signature header. */
  readonly headers: Readonly<Record<string, string>>;
}

export function unroutedInbox(d: {
  readonly store: Store;
  readonly now: () => string;
  readonly config?: UnroutedConfig;
  readonly counter?: UnroutedCounter;
}) {
  const maxEntries = d.config?.maxEntries ?? UNROUTED_DEFAULTS.maxEntries;
  const days = d.config?.retentionDays ?? UNROUTED_DEFAULTS.retentionDays;
  if (!Number.isInteger(maxEntries) || maxEntries < 1)
    throw new KeelError(
      ErrorCode.usage,
      `unrouted.maxEntries: expected a whole number >= 1, got ${maxEntries}`,
      {
        field: 'unrouted.maxEntries',
      },
    );
  if (!Number.isInteger(days) || days < 1)
    throw new KeelError(
      ErrorCode.usage,
      `unrouted.retentionDays: expected a whole number >= 1, got ${days}`,
      {
        field: 'unrouted.retentionDays',
      },
    );
  const limits = (at: string) => ({
    maxEntries,
    keepAfter: new Date(Date.parse(at) - days * 86_400_000).toISOString(),
  });
  const counted = (k: KeptUnrouted, reason: UnroutedReason): UnroutedEvent => {
    d.counter?.kept(reason);
    if (k.dropped.age > 0) d.counter?.dropped('age', k.dropped.age);
    if (k.dropped.size > 0) d.counter?.dropped('size', k.dropped.size);
    return k.entry;
  };
  return {
    limits: { maxEntries, retentionDays: days },
    /** Keeps an event that started no run, with why. */
    async keepEvent(
      tenant: string,
      event: EventRecord,
      why: { reason: UnroutedReason; detail: string },
    ): Promise<UnroutedEvent> {
      const at = d.now();
      const k = await d.store.unrouted.keepUnrouted(
        {
          tenant,
          id: unroutedEventId(tenant, event.source, event.id),
          source: event.source,
          eventId: event.id,
          type: event.type,
          subject: event.subject === '' ? null : event.subject,
          reason: why.reason,
          detail: why.detail,
          content: event,
          at,
        },
        limits(at),
      );
      return counted(k, why.reason);
    },
    /** Keeps an authenticated hook delivery whose mapping failed, with the problem. */
    async keepDelivery(tenant: string, delivery: FailedDelivery, detail: string): Promise<UnroutedEvent> {
      const at = d.now();
      const source = `hook:${delivery.hook}`;
      const k = await d.store.unrouted.keepUnrouted(
        {
          tenant,
          id: hashOf({ kind: 'delivery', tenant, source, body: hashOf(delivery.body) }),
          source,
          eventId: null,
          type: null,
          subject: null,
          reason: 'mapping_failed',
          detail,
          content: delivery,
          at,
        },
        limits(at),
      );
      return counted(k, 'mapping_failed');
    },
    /** The tenant's entries, the most recently received first. */
    async list(
      tenant: string,
      q: { state?: 'waiting' | 'redelivered' | 'all'; limit?: number } = {},
    ): Promise<UnroutedEvent[]> {
      if (q.limit !== undefined && (!Number.isInteger(q.limit) || q.limit < 1 || q.limit > 500))
        throw new KeelError(ErrorCode.usage, `limit: expected a whole number from 1 to 500, got ${q.limit}`, {
          field: 'limit',
        });
      if (q.state !== undefined && !['waiting', 'redelivered', 'all'].includes(q.state))
        throw new KeelError(
          ErrorCode.usage,
          `state: expected waiting, redelivered or all, got ${String(q.state)}`,
          {
            field: 'state',
          },
        );
      return d.store.unrouted.listUnrouted(tenant, q);
    },
    /** Marks a waiting entry redelivered with the runs it started (one mark wins). */
    mark: (tenant: string, id: string, runs: readonly string[], at: string) =>
      d.store.unrouted.markRedelivered(tenant, id, runs, at),
    /** One entry of the tenant's inbox; not_found when there is none of that id. */
    async get(tenant: string, id: string): Promise<UnroutedEvent> {
      const e = await d.store.unrouted.getUnrouted(tenant, id);
      if (!e)
        throw new KeelError(
          ErrorCode.notFound,
          `no unrouted event ${JSON.stringify(id.slice(0, 100))} in this tenant's inbox`,
          {
            id: id.slice(0, 100),
          },
        );
      return e;
    },
  };
}

export type UnroutedInboxHandle = ReturnType<typeof unroutedInbox>;

/**
 * Maps a kept hook delivery again with `hooks` (the hooks file as served now): the event to emit,
 * or event_invalid naming the hook and the mapped field when it still does not map.
 */
export function remapWith(hooks: readonly HookSpec[]) {
  return (tenant: string, failed: FailedDelivery): unknown => {
    const hook = hooks.find((h) => h.name === failed.hook && h.tenant === tenant);
    if (!hook)
      throw new KeelError(ErrorCode.notFound, `hook ${failed.hook} of this tenant is not in the hooks file`, {
        hook: failed.hook,
      });
    const body = readDeliveryBody(new TextEncoder().encode(failed.body), failed.headers['content-type']);
    const mapped = body.ok ? mapDelivery(hook, body.value, new Map(Object.entries(failed.headers))) : body;
    if (!mapped.ok)
      throw new KeelError(ErrorCode.eventInvalid, `hook ${failed.hook}: ${mapped.message}`, {
        hook: failed.hook,
        field: mapped.field,
        reason: mapped.reason,
      });
    return mapped.event;
  };
}
