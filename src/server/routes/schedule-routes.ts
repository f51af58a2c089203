/**
 * Keel API, the caller's tenant's schedules (docs/events.md, "Schedules"), read-only: each schedule
 * trigger of a LIVE or AUTONOMOUS version, with the last fire the event index holds and the next
 * fire time — what `keel schedules ls` prints. The scheduler itself runs in `keel serve` and
 * `keel worker`; this route starts nothing.
 */
import { scheduledWorkflows } from '../../app/scheduler.ts';
import { type KeelRoute, ok, route } from './route.ts';

export const SCHEDULE_ROUTES: readonly KeelRoute[] = [
  route({
    method: 'get',
    path: '/api/schedules',
    operationId: 'listSchedules',
    summary: "The caller's tenant's scheduled workflows, with each schedule's last and next fire",
    tag: 'events',
    auth: true,
    responses: {
      200: '{schedules: [{workflowId, version, schedule: {cron, timezone, missed}, lastFire?, nextFire?}]}',
    },
    handle: async ({ keel, p }) => {
      const list = await scheduledWorkflows(keel.store, p.tenant, Date.now());
      return ok({ schedules: list.map(({ tenant: _, ...w }) => w) });
    },
  }),
];
