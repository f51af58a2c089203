/**
 * How the ledger's schema (entry-kinds.ts) writes the shape of a payload, and the check of a
 * payload against it. A field is a type, optional with a trailing `?`, or a closed set of string
 * values. The check names the first field that does not fit; it never throws.
 */

export type FieldType =
  | 'string'
  | 'number'
  | 'boolean'
  | 'digest'
  | 'object'
  | 'array'
  | 'any'
  | 'digest|null';
/**
 * A field type, optional with a trailing `?`; or a closed set of string values, required (the
 * list) or optional (`{ optional: list }`).
 */
export type Shape = Readonly<
  Record<string, FieldType | `${FieldType}?` | readonly string[] | { readonly optional: readonly string[] }>
>;

const DIGEST_RE = /^sha256:[0-9a-f]{64}$/;

function fits(t: FieldType, v: unknown): boolean {
  switch (t) {
    case 'any':
      return v !== undefined;
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'array':
      return Array.isArray(v);
    case 'digest':
      return typeof v === 'string' && DIGEST_RE.test(v);
    case 'digest|null':
      return v === null || (typeof v === 'string' && DIGEST_RE.test(v));
    default:
      return typeof v === t;
  }
}

/** The first field of `p` that does not fit `shape`, described; undefined when every field fits. */
export function shapeProblem(shape: Shape, p: Record<string, unknown>): string | undefined {
  for (const [field, spec] of Object.entries(shape)) {
    if (typeof spec === 'object' && 'optional' in spec) {
      if (p[field] !== undefined && !spec.optional.includes(p[field] as string))
        return `${field} is ${JSON.stringify(p[field])}, not one of ${spec.optional.join(', ')}`;
      continue;
    }
    if (typeof spec !== 'string') {
      if (!spec.includes(p[field] as string)) {
        return `${field} is ${JSON.stringify(p[field]) ?? 'missing'}, not one of ${spec.join(', ')}`;
      }
      continue;
    }
    const optional = spec.endsWith('?');
    const type = (optional ? spec.slice(0, -1) : spec) as FieldType;
    const v = p[field];
    if (v === undefined) {
      if (!optional) return `${field} is missing`;
    } else if (!fits(type, v)) {
      return `${field} is not ${type === 'digest' ? 'a sha256 digest' : `a ${type}`}`;
    }
  }
  return undefined;
}
