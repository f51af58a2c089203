/**
 * The event shapes a project's sample events show, for the compiler's catalog (`keel draft` reads
 * them from events/*.json). Pure: values in, shapes out, sorted.
 */
import type { EventShape } from './compiled-request.ts';
import { cmp } from './grammar/request-context.ts';

/** A sample's text value kept as a value of its field: a short word or name, not free text. */
export const VALUE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$/;
/** At most this many values are kept per field (a field with more is an id or free text). */
export const MAX_VALUES = 20;

/**
 * The event shapes sample events show (`{type, payload}` values, e.g. a project's events/*.json):
 * one shape per type, with every payload field any sample of it carries, and the short text values
 * samples show for a field (`values`, when any; a field with more than 20 is left without). Not an
 * event is skipped. The samples' subjects are kept the same way (`subjects`): they show what an
 * event's subject looks like ("T-2001"), which tells an id argument's pattern whether it fits; and
 * the fields every sample gives as true or false (`flags`: "verified" says one).
 */
export function eventShapesOf(samples: readonly unknown[]): EventShape[] {
  const fields = new Map<string, Set<string>>();
  const values = new Map<string, Map<string, Set<string>>>();
  const subjects = new Map<string, Set<string>>();
  // Per type and field: whether every sample gives it as true or false.
  const flags = new Map<string, Map<string, boolean>>();
  for (const s of samples) {
    if (typeof s !== 'object' || s === null || Array.isArray(s)) continue;
    const { type, payload, subject } = s as { type?: unknown; payload?: unknown; subject?: unknown };
    if (typeof type !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(type)) continue;
    if (typeof subject === 'string' && VALUE.test(subject))
      subjects.set(type, (subjects.get(type) ?? new Set<string>()).add(subject));
    const set = fields.get(type) ?? new Set<string>();
    if (typeof payload === 'object' && payload !== null && !Array.isArray(payload))
      for (const [k, v] of Object.entries(payload)) {
        if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(k)) continue;
        set.add(k);
        const byType = flags.get(type) ?? new Map<string, boolean>();
        byType.set(k, (byType.get(k) ?? true) && typeof v === 'boolean');
        flags.set(type, byType);
        if (typeof v !== 'string' || !VALUE.test(v)) continue;
        const byField = values.get(type) ?? new Map<string, Set<string>>();
        const vs = byField.get(k) ?? new Set<string>();
        vs.add(v);
        byField.set(k, vs);
        values.set(type, byField);
      }
    fields.set(type, set);
  }
  return [...fields.entries()]
    .sort(([a], [b]) => cmp(a, b))
    .map(([type, f]) => {
      const kept = [...(values.get(type) ?? new Map<string, Set<string>>()).entries()]
        .filter(([, vs]) => vs.size <= MAX_VALUES)
        .sort(([a], [b]) => cmp(a, b))
        .map(([k, vs]) => [k, [...vs].sort(cmp)] as const);
      const subs = subjects.get(type);
      const yesNo = [...(flags.get(type) ?? new Map<string, boolean>())]
        .filter(([, all]) => all)
        .map(([k]) => k)
        .sort(cmp);
      return {
        type,
        payload: [...f].sort(),
        ...(kept.length ? { values: Object.fromEntries(kept) } : {}),
        ...(subs && subs.size <= MAX_VALUES ? { subjects: [...subs].sort(cmp) } : {}),
        ...(yesNo.length ? { flags: yesNo } : {}),
      };
    });
}
