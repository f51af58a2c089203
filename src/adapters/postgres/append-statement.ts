import type { AppendRequest } from '../../ports/index.ts';
import { appendedBlobs } from '../shared/blob-rows.ts';
import type { BudgetLink } from '../shared/writ-budget-rows.ts';

const APPEND_SQL = `
WITH req AS (
  SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[],
                       $7::int[], $8::text[], $9::text[], $10::text[], $11::text[], $12::int[],
                       $13::text[], $14::text[], $15::text[], $16::text[], $17::bool[], $18::text[],
                       $19::bigint[], $50::text[], $51::text[], $66::bigint[], $67::text[])
    AS q(ord, run_id, tenant, exp_seq, exp_hash, status, head_seq, head_hash, created_at,
         updated_at, workflow_id, version, spec_hash, event_id, event_type, close_id,
         lease_set, lease_owner, lease_until, mode, shadow_of, wake_at, subject)
),
advanced AS (
  UPDATE runs r
     SET status = q.status, head_seq = q.head_seq, head_hash = q.head_hash, updated_at = q.updated_at,
         lease_owner = CASE WHEN q.lease_set THEN q.lease_owner ELSE r.lease_owner END,
         lease_until = CASE WHEN q.lease_set THEN q.lease_until ELSE r.lease_until END,
         wake_at = COALESCE(q.wake_at, r.wake_at),
         wait_event = CASE WHEN q.status = 'waiting' THEN r.wait_event ELSE NULL END
    FROM req q
   WHERE q.exp_seq IS NOT NULL AND r.run_id = q.run_id AND r.tenant = q.tenant
     AND r.head_seq = q.exp_seq AND r.head_hash = q.exp_hash
  RETURNING q.ord, r.run_key
),
created AS (
  INSERT INTO runs (run_id, tenant, workflow_id, version, spec_hash, status, head_seq, head_hash,
                    event_id, event_type, created_at, updated_at, lease_owner, lease_until, mode, shadow_of,
                    wake_at, subject)
  SELECT run_id, tenant, workflow_id, version, spec_hash, status, head_seq, head_hash,
         event_id, event_type, created_at, updated_at, lease_owner, lease_until, mode, shadow_of, wake_at, subject
    FROM req WHERE exp_seq IS NULL
     AND NOT EXISTS (SELECT 1 FROM retained_runs x WHERE x.run_id = req.run_id)
  ON CONFLICT (run_id) DO NOTHING
  RETURNING run_key, run_id
),
won AS (
  SELECT ord, run_key FROM advanced
  UNION ALL
  SELECT q.ord, c.run_key FROM created c JOIN req q ON q.run_id = c.run_id AND q.exp_seq IS NULL
),
appended AS (
  INSERT INTO entries (run_key, seq, v, kind, prev_hash, payload_hash, hash, at, payload)
  SELECT w.run_key, e.seq, e.v, e.kind, e.prev_hash, e.payload_hash, e.hash, e.at,
         substring($39::bytea FROM e.off FOR e.len)
    FROM unnest($20::int[], $21::int[], $22::int[], $23::text[], $24::text[], $25::text[],
                $26::text[], $27::text[], $28::int[], $40::int[])
      AS e(ord, seq, v, kind, prev_hash, payload_hash, hash, at, off, len)
    JOIN won w ON w.ord = e.ord
),
-- Blobs of the appended entries, stored once per tenant; run_blobs says which runs reference them.
blobbed AS (
  INSERT INTO blobs (tenant, hash, bytes)
  SELECT q.tenant, b.hash, substring($39::bytea FROM b.off FOR b.len)
    FROM unnest($52::int[], $53::text[], $54::int[], $55::int[]) AS b(ord, hash, off, len)
    JOIN won w ON w.ord = b.ord JOIN req q ON q.ord = b.ord
  ON CONFLICT DO NOTHING
),
linked AS (
  INSERT INTO run_blobs (run_key, hash)
  SELECT w.run_key, b.hash FROM unnest($52::int[], $53::text[]) AS b(ord, hash) JOIN won w ON w.ord = b.ord
  ON CONFLICT DO NOTHING
),
closed AS (
  DELETE FROM approvals a USING req q, won w
   WHERE w.ord = q.ord AND q.close_id IS NOT NULL AND a.run_id = q.run_id AND a.proposal_id = q.close_id
),
opened AS (
  INSERT INTO approvals (run_id, proposal_id, tenant, step, tool, args, reason, channel, requested_at)
  SELECT x.run_id, x.proposal_id, x.tenant, x.step, x.tool, x.args, x.reason, x.channel, x.requested_at
    FROM unnest($29::int[], $30::text[], $31::text[], $32::text[], $33::text[], $34::text[],
                $35::text[], $36::text[], $37::text[], $38::text[])
      AS x(ord, run_id, proposal_id, tenant, step, tool, args, reason, channel, requested_at)
    JOIN won w ON w.ord = x.ord
),
-- Writ budgets: each winning append's reservation (or release) for every writ of its chain,
-- summed per writ, applied to rows locked in one global order (tenant, hash) so that two
-- statements sharing writs wait for each other instead of deadlocking. A sum past a writ's limit
-- breaks the table's CHECK and the statement fails whole (GroupCommit then tries each append alone).
budget AS (
  SELECT c.tenant, c.hash, sum(c.steps) AS steps, sum(c.calls) AS calls, sum(c.cents) AS cents,
         sum(c.free_steps) AS free_steps, sum(c.free_calls) AS free_calls, sum(c.free_cents) AS free_cents
    FROM unnest($41::int[], $42::text[], $43::text[], $44::bigint[], $45::bigint[], $46::bigint[],
                $47::bigint[], $48::bigint[], $49::bigint[])
      AS c(ord, tenant, hash, steps, calls, cents, free_steps, free_calls, free_cents)
    JOIN won w ON w.ord = c.ord
   GROUP BY c.tenant, c.hash
),
locked AS (
  SELECT b.tenant, b.hash FROM writ_budgets b JOIN budget d ON d.tenant = b.tenant AND d.hash = b.hash
   ORDER BY b.tenant, b.hash FOR UPDATE OF b
),
charged AS (
  UPDATE writ_budgets b
     SET steps_used = GREATEST(0, b.steps_used - d.free_steps) + d.steps,
         calls_used = GREATEST(0, b.calls_used - d.free_calls) + d.calls,
         cents_used = GREATEST(0, b.cents_used - d.free_cents) + d.cents
    FROM budget d JOIN locked l ON l.tenant = d.tenant AND l.hash = d.hash
   WHERE b.tenant = d.tenant AND b.hash = d.hash
),
-- Shadow work queued with the append that starts its live run (ShadowWork), only if that append won.
queued AS (
  INSERT INTO shadow_queue (tenant, id, workflow_id, version, live_version, live_run_id, judged_as, event, enqueued_ms)
  SELECT s.tenant, s.id, s.workflow_id, s.version, s.live_version, s.live_run_id, s.judged_as, s.event, s.enqueued_ms
    FROM unnest($56::int[], $57::text[], $58::text[], $59::text[], $60::int[], $61::int[], $62::text[],
                $63::text[], $64::text[], $65::bigint[])
      WITH ORDINALITY AS s(ord, tenant, id, workflow_id, version, live_version, live_run_id, judged_as, event,
                           enqueued_ms, n)
    JOIN won w ON w.ord = s.ord
   ORDER BY s.n
  ON CONFLICT (tenant, id) DO NOTHING
),
woken AS (
  SELECT pg_notify('keel_runs', current_schema())
   WHERE EXISTS (SELECT 1 FROM won w JOIN req q ON q.ord = w.ord
                  WHERE q.lease_set AND q.lease_owner IS NULL
                    AND (q.status = 'running' OR q.wake_at IS NOT NULL))
),
announced AS (
  SELECT pg_notify('keel_appends', current_schema() || ' ' || q.run_id)
    FROM won w JOIN req q ON q.ord = w.ord
)
SELECT ord, (SELECT count(*) FROM woken) AS woke, (SELECT count(*) FROM announced) AS announced FROM won`;

/** The channel every append is announced on, as `<schema> <run id>` (Ledger.onAppended). */
export const APPEND_CHANNEL = 'keel_appends';

/**
 * The append statement and the name it is prepared under (once per pooled connection): it wakes
 * workers when a run is left for them, and announces every appended run. Without `notify` (a
 * database with no LISTEN/NOTIFY) it does neither: workers and event streams poll.
 */
export function appendStatement(notify: boolean): { name: string; text: string } {
  return notify
    ? { name: 'keel_append_v9', text: APPEND_SQL }
    : {
        name: 'keel_append_v9_quiet',
        text: APPEND_SQL.replace("pg_notify('keel_runs', current_schema())", '1').replace(
          "pg_notify('keel_appends', current_schema() || ' ' || q.run_id)",
          '1',
        ),
      };
}

/**
 * Splits appends (in the order issued) into rounds in which each run appears once, so an append
 * built on a head written earlier in the same group sees it (the next round is a new statement).
 * Each round is sorted by run id: every Keel process then locks run rows in one global order, so
 * two groups touching the same runs wait for each other instead of deadlocking.
 */
export function splitRounds<T extends { readonly req: AppendRequest }>(items: readonly T[]): T[][] {
  const rounds: T[][] = [];
  const lastRound = new Map<string, number>();
  for (const item of items) {
    const r = (lastRound.get(item.req.runId) ?? -1) + 1;
    rounds[r] ??= [];
    rounds[r].push(item);
    lastRound.set(item.req.runId, r);
  }
  for (const round of rounds) round.sort((a, b) => byRunId(a.req, b.req));
  return rounds;
}

/** The lock order of runs: by run id. */
export function byRunId(a: AppendRequest, b: AppendRequest): number {
  return a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0;
}

/**
 * The 66 parameters of APPEND_SQL for one round; `ord` is the index in `reqs`. A `hold` lease runs
 * until `now + ms` on this process's clock, as workers' leases do. The entries' payloads travel as
 * one binary bytea ($39) cut by offset ($28, 1-based) and length ($40): a bytea[] parameter would
 * be sent as hex text, doubling its bytes, and escaped by the driver and decoded by the server.
 * An append with a writ budget change gives one row per writ of its chain (`linksOf`) to $41-$49.
 * A run created as simulated names its mode and its shadow's live run in $50 and $51. The blobs of
 * its v2 entries follow the payloads in $39, cut by $54 and $55, with their append and hash in $52, $53.
 * Shadow work queued with an append (ShadowWork) is $56-$65, one row per item. A wait's wake time
 * (LeaseChange `wait`) is $66: the row keeps it while the run waits, and workers are woken to re-arm.
 * A created run's event subject (NULL when empty) is $67.
 */
export function appendParams(
  reqs: readonly AppendRequest[],
  now = Date.now(),
  linksOf: (req: AppendRequest) => readonly BudgetLink[] = () => [],
): unknown[] {
  const q: unknown[][] = Array.from({ length: 19 }, () => []);
  const e: unknown[][] = Array.from({ length: 9 }, () => []);
  const x: unknown[][] = Array.from({ length: 10 }, () => []);
  const b: unknown[][] = Array.from({ length: 9 }, () => []);
  const m: unknown[][] = [[], []];
  const bl: unknown[][] = [[], [], [], []];
  const sw: unknown[][] = Array.from({ length: 10 }, () => []);
  const wake: unknown[] = [];
  const subjects: unknown[] = [];
  const payloads: Uint8Array[] = [];
  const lengths: number[] = [];
  let offset = 1;
  reqs.forEach((req, ord) => {
    const first = req.entries[0]!;
    const last = req.entries[req.entries.length - 1]!;
    const c = req.create;
    const row = [
      ord,
      req.runId,
      req.tenant,
      req.expectedHead?.seq ?? null,
      req.expectedHead?.hash ?? null,
      req.status,
      last.seq,
      last.hash,
      first.at,
      last.at,
      c?.workflowId ?? null,
      c?.version ?? null,
      c?.specHash ?? null,
      c?.eventId ?? null,
      c?.eventType ?? null,
      req.closeApproval ?? null,
      req.lease !== undefined,
      req.lease?.op === 'hold' ? req.lease.owner : null,
      req.lease?.op === 'hold' ? now + req.lease.ms : null,
    ];
    pushColumns(q, row);
    pushColumns(m, [c?.mode ?? null, c?.shadowOf ?? null]);
    wake.push(req.lease?.op === 'wait' ? req.lease.wakeAt : (req.wakeAt ?? null));
    subjects.push(c?.subject || null);
    for (const en of req.entries) {
      const vals = [ord, en.seq, en.v, en.kind, en.prevHash, en.payloadHash, en.hash, en.at, offset];
      pushColumns(e, vals);
      payloads.push(en.payload);
      lengths.push(en.payload.length);
      offset += en.payload.length;
    }
    for (const blob of appendedBlobs(req.entries)) {
      pushColumns(bl, [ord, blob.hash, offset, blob.bytes.length]);
      payloads.push(blob.bytes);
      offset += blob.bytes.length;
    }
    const a = req.openApproval;
    if (a) {
      const vals = [
        ord,
        a.runId,
        a.proposalId,
        a.tenant,
        a.step,
        a.tool,
        JSON.stringify(a.args),
        a.reason,
        a.channel,
        a.requestedAt,
      ];
      pushColumns(x, vals);
    }
    for (const w of req.shadowWork ?? []) {
      const vals = [ord, w.tenant, w.id, w.workflowId, w.version, w.liveVersion, w.liveRunId ?? null];
      pushColumns(sw, [...vals, w.judgedAs, JSON.stringify(w.event), w.enqueuedMs]);
    }
    const budget = req.budget;
    if (budget) {
      const r = budget.reserve;
      const f = budget.release;
      for (const l of linksOf(req)) {
        const vals = [ord, req.tenant, l.hash, r?.steps ?? 0, r?.calls ?? 0, r?.cents ?? 0];
        pushColumns(b, [...vals, f?.steps ?? 0, f?.calls ?? 0, f?.cents ?? 0]);
      }
    }
  });
  return [...q, ...e, ...x, Buffer.concat(payloads), lengths, ...b, ...m, ...bl, ...sw, wake, subjects];
}

/** Appends one row's values to column arrays (parameter i gets value i). */
function pushColumns(columns: unknown[][], values: readonly unknown[]): void {
  for (let i = 0; i < values.length; i++) columns[i]!.push(values[i]);
}
