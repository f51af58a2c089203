/**
 * A wait step in words, for read-backs: `wait: {for: 15m}` reads "wait 15 minutes", `wait: {until:
 * "{{ steps.grant.output.expiresAt }}"}` reads "wait until step grant's expiresAt" (a literal
 * instant is quoted), a wait for an event names the event type, its match, its timeout and its
 * look-back window. Pure.
 */

import type { WaitSpec } from '../spec/wait-step.ts';
import { argWords } from './arg-words.ts';
import { article } from './request-words.ts';

const UNIT_WORDS = { s: 'second', m: 'minute', h: 'hour', d: 'day' } as const;

/** `15m` -> "15 minutes", `1d` -> "1 day"; as written when it is not a duration. */
export function durationWords(d: string): string {
  const m = /^([0-9]+)(s|m|h|d)$/.exec(d);
  if (!m) return JSON.stringify(d);
  const unit = UNIT_WORDS[m[2] as keyof typeof UNIT_WORDS];
  return `${m[1]} ${unit}${m[1] === '1' ? '' : 's'}`;
}

/**
 * "wait 15 minutes" / "wait until step grant's expiresAt" / "wait up to 48 hours for a
 * customer.replied event where event.subject == run.event.subject (one that arrived up to 1 hour
 * before the wait counts)".
 */
export function waitWords(w: WaitSpec): string {
  if ('for' in w) return `wait ${durationWords(w.for)}`;
  if ('until' in w) return `wait until ${argWords(w.until)}`;
  const within = w.timeout ? `up to ${durationWords(w.timeout)} ` : '';
  const where = w.match ? ` where ${w.match}` : '';
  const back = w.lookback
    ? ` (one that arrived up to ${durationWords(w.lookback)} before the wait counts)`
    : ' (one that arrived since the run started counts)';
  return `wait ${within}for ${article(w.event)} ${w.event} event${where}${back}`;
}
