/**
 * Keel API, the audit query: `GET /api/audit` (ledger entries across the key's tenant's runs,
 * filtered exactly, in (at, runId, seq) order, a page at a time) and `GET /api/audit/counts` (the
 * same filters, counted by kind). Read-only. A filter the query cannot take, the cursor included,
 * is 400 validation_error naming `details.field`.
 */
import * as z from 'zod';
import type { AuditFilter } from '../../app/audit.ts';
import { isKeelError } from '../../core/errors.ts';
import { ENTRY_KINDS, type EntryKind } from '../../core/ledger/index.ts';
import { ProtocolError } from '../../openwop/protocol-error.ts';
import { Instant, type KeelRoute, ok, route } from './route.ts';

const FILTERS = {
  runId: z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/, 'expected a Keel run id sha256:<64 hex>')
    .optional()
    .describe('entries of this run'),
  workflowId: z.string().min(1).max(128).optional().describe('entries of runs of this workflow'),
  kind: z
    .enum(ENTRY_KINDS as [EntryKind, ...EntryKind[]])
    .optional()
    .describe('entries of this kind'),
  actor: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .describe(
      'entries whose payload names this actor as who acted: `by` of approval.resolved, approval.simulated, step.reconciled, run.paused, run.resumed; `approvedBy` of step.allowed; the `<by>` of a cancelled run.finished’s reason “cancelled by <by>[: <why>]”',
    ),
  code: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .describe('step.refused and run.finished entries with this `code`'),
  since: Instant.optional().describe('entries written at or after this instant (ISO 8601 with a zone)'),
  until: Instant.optional().describe('entries written before this instant (ISO 8601 with a zone)'),
};

type Filters = { [K in keyof typeof FILTERS]?: string };

function filterOf(q: Filters): AuditFilter {
  return Object.fromEntries(Object.entries(q).filter(([k, v]) => k in FILTERS && v !== undefined));
}

/** The query's own refusals (a cursor no page returned, a workflow id that is none) as validation errors. */
async function asValidation<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (e) {
    if (isKeelError(e) && e.code === 'usage' && typeof e.details.field === 'string')
      throw new ProtocolError('validation_error', e.message, { field: e.details.field });
    throw e;
  }
}

export const AUDIT_ROUTES: readonly KeelRoute[] = [
  route({
    method: 'get',
    path: '/api/audit',
    operationId: 'queryAudit',
    summary: 'Ledger entries across the tenant’s runs, filtered, oldest first, a page at a time',
    tag: 'audit',
    auth: true,
    description:
      'Ordered by (at, runId, seq), ascending, in byte order; `next` continues after the last entry of the page (send it as `cursor` with the same filters). Entries appended while paging appear on later pages if they sort after the cursor, and never twice.',
    query: z.object({
      ...FILTERS,
      limit: z.coerce.number().int().min(1).max(500).optional().describe('default 100'),
      cursor: z
        .string()
        .min(1)
        .optional()
        .describe('`next` of the previous page, sent with the same filters'),
    }),
    responses: {
      200: '{entries: [{runId, workflowId, version, kind, seq, at, prevHash, payloadHash, hash, payload}], next?}',
    },
    async handle({ keel, p, query }) {
      const page = await asValidation(() =>
        keel.audit.entries(p.tenant, {
          ...filterOf(query),
          limit: query.limit ?? 100,
          ...(query.cursor ? { cursor: query.cursor } : {}),
        }),
      );
      return ok({ entries: page.entries, ...(page.next ? { next: page.next } : {}) });
    },
  }),
  route({
    method: 'get',
    path: '/api/audit/counts',
    operationId: 'countAudit',
    summary: 'How many of the tenant’s ledger entries match, by kind',
    tag: 'audit',
    auth: true,
    query: z.object(FILTERS),
    responses: { 200: '{counts: {<kind>: n} (every kind, 0 where none), total}' },
    async handle({ keel, p, query }) {
      return ok(await asValidation(() => keel.audit.counts(p.tenant, filterOf(query))));
    },
  }),
];
