/**
 * The event shapes a project's sample events show, for the compiler's catalog (`keel draft` reads
 * them from events/*.json). Pure: values in, shapes out, sorted.
 */
import type { EventShape } from './compiled-request.ts';
import { cmp } from './grammar/request-context.ts';

/**
 * The event shapes sample events show (`{type, payload}` values, e.g. a project's events/*.json):
 * one shape per type, with every payload field any sample of it carries. Not an event is skipped.
 */
export function eventShapesOf(samples: readonly unknown[]): EventShape[] {
  const fields = new Map<string, Set<string>>();
  for (const s of samples) {
    if (typeof s !== 'object' || s === null || Array.isArray(s)) continue;
    const { type, payload } = s as { type?: unknown; payload?: unknown };
    if (typeof type !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(type)) continue;
    const set = fields.get(type) ?? new Set<string>();
    if (typeof payload === 'object' && payload !== null && !Array.isArray(payload))
      for (const k of Object.keys(payload)) if (/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(k)) set.add(k);
    fields.set(type, set);
  }
  return [...fields.entries()]
    .sort(([a], [b]) => cmp(a, b))
    .map(([type, f]) => ({ type, payload: [...f].sort() }));
}
