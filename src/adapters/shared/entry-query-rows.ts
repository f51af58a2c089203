/**
 * The audit query's SQL, shared by both stores (Ledger.queryEntries, countEntries): the conditions
 * of an EntryFilter over `entries e JOIN runs r`, the (at, run id, seq) order and its cursor. The
 * stores differ only in how a payload field is read (EntrySqlDialect): SQLite's json_extract on
 * the payload's text, PostgreSQL's jsonb of it. Pure: nothing here queries.
 *
 * Payload conditions (actor, code) sit inside `CASE WHEN r.tenant = … THEN … END`, so no database
 * evaluates them before the join has narrowed the rows to the tenant's runs: another tenant's
 * payloads are never parsed, not even to fail on one that is not JSON. Inside, each kind's test is
 * a CASE on the kind too: SQLite evaluates both sides of an AND in a value (not a WHERE term), and
 * only CASE guarantees a payload of another kind is never parsed.
 */
import { ErrorCode, KeelError } from '../../core/errors.ts';
import { ACTOR_FIELDS, CANCELLED_BY, CODE_KINDS } from '../../core/ledger/index.ts';
import type { EntryFilter, EntryPage } from '../../ports/index.ts';
import { entryFromColumns } from './rows.ts';

/** Binds a value and returns its placeholder. */
export type Bind = (value: unknown) => string;

export interface EntrySqlDialect {
  /** The entry's `at`, compared byte by byte. */
  readonly at: string;
  /** SQL true when the payload's top-level field `name` is the JSON string `value` (bound). */
  stringField(name: string, value: string, bind: Bind): string;
  /** SQL true when the payload's top-level field `name` is a string starting with `prefix` (bound). */
  fieldStartsWith(name: string, prefix: string, bind: Bind): string;
}

/** The payload field names of the actor rules must be plain words (they are written into SQL). */
const WORD = /^[A-Za-z]+$/;

export const SQLITE_ENTRY_SQL: EntrySqlDialect = {
  at: 'e.at',
  stringField: (name, value, bind) =>
    `(json_type(CAST(e.payload AS TEXT), '$.${word(name)}') = 'text' AND json_extract(CAST(e.payload AS TEXT), '$.${name}') = ${bind(value)})`,
  fieldStartsWith: (name, prefix, bind) =>
    `(json_type(CAST(e.payload AS TEXT), '$.${word(name)}') = 'text' AND substr(json_extract(CAST(e.payload AS TEXT), '$.${name}'), 1, length(${bind(prefix)})) = ${bind(prefix)})`,
};

const PG_PAYLOAD = "convert_from(e.payload, 'UTF8')::jsonb";

export const POSTGRES_ENTRY_SQL: EntrySqlDialect = {
  at: 'e.at COLLATE "C"',
  stringField: (name, value, bind) => `(${PG_PAYLOAD} -> '${word(name)}') = to_jsonb(${bind(value)}::text)`,
  fieldStartsWith: (name, prefix, bind) =>
    `(jsonb_typeof(${PG_PAYLOAD} -> '${word(name)}') = 'string' AND starts_with(${PG_PAYLOAD} ->> '${name}', ${bind(prefix)}::text))`,
};

function word(name: string): string {
  if (!WORD.test(name)) throw new KeelError(ErrorCode.internal, `not a payload field name: ${name}`);
  return name;
}

/** `test`, evaluated only where `guard` holds (else false). */
const when = (guard: string, test: string) => `(CASE WHEN ${guard} THEN ${test} ELSE FALSE END)`;

const ofKinds = (kinds: readonly string[]) => `e.kind IN (${kinds.map((k) => `'${k}'`).join(', ')})`;

/** The payload names `actor` as who acted (entry-actor.ts), each kind's field read only for that kind. */
function actorCondition(actor: string, d: EntrySqlDialect, bind: Bind): string {
  const byField = new Map<string, string[]>();
  for (const [kind, field] of Object.entries(ACTOR_FIELDS))
    byField.set(field, [...(byField.get(field) ?? []), kind]);
  const branches = [...byField].map(([field, kinds]) =>
    when(ofKinds(kinds), d.stringField(field, actor, bind)),
  );
  const exact = `${CANCELLED_BY}${actor}`;
  branches.push(
    when(
      ofKinds(['run.finished']),
      `(${d.stringField('status', 'cancelled', bind)} AND (${d.stringField('reason', exact, bind)} OR ${d.fieldStartsWith('reason', `${exact}: `, bind)}))`,
    ),
  );
  return `(${branches.join(' OR ')})`;
}

/**
 * The WHERE conditions of `f` for the tenant's entries (`entries e JOIN runs r ON r.run_key =
 * e.run_key`), each value bound through `bind` in the order its placeholder appears in them.
 */
export function entryConditions(tenant: string, f: EntryFilter, d: EntrySqlDialect, bind: Bind): string[] {
  const where = [`r.tenant = ${bind(tenant)}`];
  if (f.runId !== undefined) where.push(`r.run_id = ${bind(f.runId)}`);
  if (f.workflowId !== undefined) where.push(`r.workflow_id = ${bind(f.workflowId)}`);
  if (f.kind !== undefined) where.push(`e.kind = ${bind(f.kind)}`);
  if (f.since !== undefined) where.push(`${d.at} >= ${bind(f.since)}`);
  if (f.until !== undefined) where.push(`${d.at} < ${bind(f.until)}`);
  if (f.code === undefined && f.actor === undefined) return where;
  // SQLite binds `?` in the order they appear: the CASE's tenant first, then the payload's values.
  const guard = bind(tenant);
  const payload: string[] = [];
  if (f.code !== undefined) payload.push(when(ofKinds(CODE_KINDS), d.stringField('code', f.code, bind)));
  if (f.actor !== undefined) payload.push(actorCondition(f.actor, d, bind));
  where.push(when(`r.tenant = ${guard}`, payload.join(' AND ')));
  return where;
}

/** Where the audit query's pages part: after the entry (at, runId, seq) a cursor names. */
export interface EntryCursor {
  readonly at: string;
  readonly runId: string;
  readonly seq: number;
}

/** The condition for entries after `c` in the audit order (at, run id, seq). */
export function afterCursor(c: EntryCursor, d: EntrySqlDialect, bind: Bind): string {
  return `(${d.at}, r.run_id, e.seq) > (${bind(c.at)}, ${bind(c.runId)}, ${bind(c.seq)})`;
}

/** The audit order. */
export function entryOrder(d: EntrySqlDialect): string {
  return `${d.at}, r.run_id, e.seq`;
}

/** The page size a query asks for, within 1..500 (default 100). */
export function entryLimit(limit: number | undefined): number {
  return Math.min(Math.max(Math.trunc(limit ?? 100), 1), 500);
}

export function encodeEntryCursor(c: EntryCursor): string {
  return Buffer.from(JSON.stringify(['e', c.at, c.runId, c.seq])).toString('base64url');
}

export function decodeEntryCursor(cursor: string): EntryCursor {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(v) &&
      v.length === 4 &&
      v[0] === 'e' &&
      typeof v[1] === 'string' &&
      typeof v[2] === 'string' &&
      Number.isSafeInteger(v[3]) &&
      v[3] >= 0
    )
      return { at: v[1], runId: v[2], seq: v[3] };
  } catch {}
  throw new KeelError(ErrorCode.usage, 'cursor: not a cursor returned by a previous page of entries', {
    field: 'cursor',
  });
}

/**
 * A payload the actor or code filter had to read is not JSON (a row edited in the database): the
 * query cannot be answered exactly, so it is refused, pointing at `keel verify`, rather than
 * answered as if the entry named nobody.
 */
export function unreadablePayload(cause: unknown): KeelError {
  return new KeelError(
    ErrorCode.ledgerInvalid,
    'a stored payload of one of these runs is not JSON, so the actor and code filters cannot be answered; find the run with `keel verify` (or GET /api/audit without actor and code)',
    { filters: ['actor', 'code'] },
    { cause },
  );
}

/**
 * A page of the audit query from rows read with `limit + 1` (run id, workflow id, version, then the
 * entry's columns): at most `limit` entries, and the cursor after the last when there was one more.
 */
export function entryPage(rows: readonly unknown[][], limit: number): EntryPage {
  const entries = rows.slice(0, limit).map((r) => ({
    ...entryFromColumns(r[0] as string, r, 3),
    workflowId: r[1] as string,
    version: Number(r[2]),
  }));
  const last = entries.at(-1);
  return rows.length > limit && last
    ? { entries, next: encodeEntryCursor({ at: last.at, runId: last.runId, seq: last.seq }) }
    : { entries };
}
