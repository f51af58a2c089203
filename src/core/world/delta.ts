/**
 * Deltas: structured changes to a run's world (the resources it has touched). `create` adds a
 * resource at version 1; `replace` and `retract` name the version they expect, so a change made
 * on stale knowledge is refused instead of silently overwriting. Pure data, checked at the
 * boundary by `parseDeltas` before anything is applied or recorded.
 */
export type Delta =
  | { readonly op: 'create'; readonly id: string; readonly value: unknown }
  | { readonly op: 'replace'; readonly id: string; readonly expectedVersion: number; readonly value: unknown }
  | { readonly op: 'retract'; readonly id: string; readonly expectedVersion: number };

export interface DeltaProblem {
  readonly index: number;
  readonly message: string;
}

const ID = /^[A-Za-z0-9_.:/-]{1,200}$/;

const FIELDS: Readonly<Record<string, readonly string[]>> = {
  create: ['op', 'id', 'value'],
  replace: ['op', 'id', 'expectedVersion', 'value'],
  retract: ['op', 'id', 'expectedVersion'],
};

/** The problem with one delta, or undefined when it is well formed. */
function deltaProblem(d: unknown): string | undefined {
  if (typeof d !== 'object' || d === null || Array.isArray(d)) return 'a delta is an object';
  const x = d as Record<string, unknown>;
  if (typeof x.id !== 'string' || !ID.test(x.id)) {
    return `id: expected a resource id like "ticket:T-1001", got ${JSON.stringify(x.id)}`;
  }
  const keys = FIELDS[x.op as string];
  if (!keys) return `op: expected create, replace or retract, got ${JSON.stringify(x.op)}`;
  const extra = Object.keys(x).find((k) => !keys.includes(k));
  if (extra !== undefined) return `${extra}: not a field of a ${x.op} delta`;
  if (x.op !== 'retract' && x.value === undefined) return 'value is missing';
  if (x.op !== 'create' && !(Number.isSafeInteger(x.expectedVersion) && (x.expectedVersion as number) >= 1)) {
    return `expectedVersion: expected an integer >= 1, got ${JSON.stringify(x.expectedVersion)}`;
  }
  return undefined;
}

/** Checks untrusted delta data (a tool's result, a stored entry); returns the problems, if any. */
export function deltaProblems(value: unknown): DeltaProblem[] {
  if (!Array.isArray(value)) return [{ index: -1, message: 'deltas must be an array' }];
  const problems: DeltaProblem[] = [];
  for (let index = 0; index < value.length; index++) {
    const message = deltaProblem(value[index]);
    if (message !== undefined) problems.push({ index, message });
  }
  return problems;
}
