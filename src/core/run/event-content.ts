/**
 * What names a delivered event and what its content is, as pure functions. `(tenant, source, id)`
 * names an event (CloudEvents); an event delivered without a source takes the name of the channel
 * it came through (`cli`, `http`, `library`), so the pair is always there. Its content is the whole
 * canonical event, hashed: a redelivery with the same hash is the same event, one with another hash
 * is a conflict. The event index keeps the hash and the few fields that say, without the payload,
 * which part of a redelivery differed.
 */
import { type Digest, hashOf } from '../canonical/index.ts';
import type { EventRecord } from '../ledger/index.ts';

/** What the event index keeps of a delivery's content. */
export interface EventContent {
  /** SHA-256 of the canonical event (`hashOf(event)`): every field, `time` included. */
  readonly eventHash: Digest;
  readonly type: string;
  readonly subject: string;
  readonly time: string;
  readonly payloadHash: Digest;
}

/** The fields a redelivery may differ in (`id`, `source` and `tenant` name it, so never differ). */
export const CONTENT_FIELDS = ['type', 'subject', 'time', 'payload'] as const;
export type ContentField = (typeof CONTENT_FIELDS)[number];

/**
 * A delivered event as it is named and routed: `e` with the channel's name as its source when it
 * gave none. `earlier`: the forms it had before sources were defaulted (the event as given), so
 * routing finds a run such an event started then.
 */
export function deliveredEvent(
  e: EventRecord,
  channel: string,
): { readonly event: EventRecord; readonly earlier: readonly EventRecord[] } {
  return e.source === '' ? { event: { ...e, source: channel }, earlier: [e] } : { event: e, earlier: [] };
}

export function eventContent(e: EventRecord): EventContent {
  return {
    eventHash: hashOf(e),
    type: e.type,
    subject: e.subject,
    time: e.time,
    payloadHash: hashOf(e.payload),
  };
}

/** Which fields of `next` differ from `first`; empty when the content is the same. */
export function differingFields(first: EventContent, next: EventContent): ContentField[] {
  if (first.eventHash === next.eventHash) return [];
  return CONTENT_FIELDS.filter((f) =>
    f === 'payload' ? first.payloadHash !== next.payloadHash : first[f] !== next[f],
  );
}
