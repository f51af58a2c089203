/**
 * A wait step in words, for read-backs: `wait: {for: 15m}` reads "wait 15 minutes", `wait: {until:
 * "{{ steps.grant.output.expiresAt }}"}` reads "wait until step grant's expiresAt" (a literal
 * instant is quoted). Pure.
 */
import type { WaitSpec } from '../spec/wait-step.ts';
import { argWords } from './arg-words.ts';

const UNIT_WORDS = { s: 'second', m: 'minute', h: 'hour', d: 'day' } as const;

/** `15m` -> "15 minutes", `1d` -> "1 day"; as written when it is not a duration. */
export function durationWords(d: string): string {
  const m = /^([0-9]+)(s|m|h|d)$/.exec(d);
  if (!m) return JSON.stringify(d);
  const unit = UNIT_WORDS[m[2] as keyof typeof UNIT_WORDS];
  return `${m[1]} ${unit}${m[1] === '1' ? '' : 's'}`;
}

/** "wait 15 minutes" / "wait until step grant's expiresAt". */
export function waitWords(w: WaitSpec): string {
  return 'for' in w ? `wait ${durationWords(w.for)}` : `wait until ${argWords(w.until)}`;
}
