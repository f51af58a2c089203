/**
 * Keel API, the caller: who a key is (its tenant, subject and kind), so a client such as the
 * console can say whose data it shows without decoding anything itself.
 */
import type { KeelRoute } from './route.ts';
import { ok, route } from './route.ts';

export const SESSION_ROUTES: readonly KeelRoute[] = [
  route({
    method: 'get',
    path: '/api/session',
    operationId: 'getSession',
    summary: 'Who the key is: its tenant, subject and kind (human or service)',
    tag: 'meta',
    auth: true,
    responses: { 200: '{tenant, subject, kind}' },
    async handle({ p }) {
      return ok({ tenant: p.tenant, subject: p.subject, kind: p.kind ?? 'human' });
    },
  }),
];
