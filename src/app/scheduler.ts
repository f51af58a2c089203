/**
 * The scheduler (issue 29 §3; docs/events.md, "Schedules"): beside the worker loop, it fires the
 * schedules of every LIVE or AUTONOMOUS version of the tenants it serves. Each fire is a canonical
 * `schedule.fired` event emitted through the one emit path, named by a content-derived id, so the
 * event index starts its run exactly once however many schedulers run; the last fire a workflow
 * handled is read back from the index (its latest event from `schedule:<id>`), so a restart after
 * downtime knows what it missed and applies the schedule's `missed` policy (plan-fires.ts).
 *
 * One timer, armed until the earliest next fire and never for longer than `pollMs` (versions are
 * read again at each wake, so a promotion or a new version is seen within a poll).
 */
import { ErrorCode, isKeelError } from '../core/errors.ts';
import { fireEvent, planFires } from '../core/schedule/index.ts';
import { type ScheduleSpec, scheduleSource } from '../core/spec/index.ts';
import type { Store } from '../ports/index.ts';
import type { EmitResult } from './events-handle.ts';
import type { Keel } from './keel-api.ts';

const ROUTABLE = new Set(['LIVE', 'AUTONOMOUS']);

/** A fire later than its instant by at most this much is on time; an older one was missed. */
export const FIRE_GRACE_MS = 60_000;

export interface SchedulerOptions {
  readonly store: Pick<Store, 'registry' | 'events'>;
  /** The one emit path (`keel.events.emit`). */
  readonly emit: (tenant: string, value: unknown) => Promise<EmitResult>;
  /** The tenants whose schedules this scheduler fires. */
  readonly tenants: () => Promise<readonly string[]>;
  /** Wall-clock time, ms since the epoch. */
  readonly clock: () => number;
  /** The longest the timer is armed for (default 60 s). */
  readonly pollMs?: number;
  readonly log?: (e: SchedulerEvent) => void;
}

export type SchedulerEvent =
  | {
      readonly kind: 'fired';
      readonly tenant: string;
      readonly workflowId: string;
      readonly scheduledFor: string;
      readonly catchUp: boolean;
      readonly runs: number;
      readonly redelivery: boolean;
    }
  | {
      readonly kind: 'error';
      readonly tenant?: string;
      readonly workflowId?: string;
      readonly message: string;
    };

/** A scheduled workflow as the scheduler sees it now. */
export interface ScheduledWorkflow {
  readonly tenant: string;
  readonly workflowId: string;
  readonly version: number;
  readonly schedule: ScheduleSpec;
  /** The latest fire the event index holds, if any (ISO-8601). */
  readonly lastFire: string | undefined;
  /** The next fire after now (ISO-8601), if the cron has one. */
  readonly nextFire: string | undefined;
}

/** The scheduled workflows of a tenant: the schedule triggers of each workflow's routable version. */
export async function scheduledWorkflows(
  store: Pick<Store, 'registry' | 'events'>,
  tenant: string,
  now: number,
): Promise<ScheduledWorkflow[]> {
  const latest = new Map<string, { version: number; schedules: ScheduleSpec[] }>();
  for (const v of await store.registry.listVersions(tenant)) {
    if (!ROUTABLE.has(v.status)) continue;
    const was = latest.get(v.workflowId);
    if (was && was.version > v.version) continue;
    const schedules = v.spec.triggers.flatMap((t) => (t.schedule ? [t.schedule] : []));
    latest.set(v.workflowId, { version: v.version, schedules });
  }
  const out: ScheduledWorkflow[] = [];
  for (const [workflowId, { version, schedules }] of [...latest].sort(([a], [b]) => a.localeCompare(b))) {
    if (schedules.length === 0) continue;
    const last = await store.events.latestDeliveredEvent(tenant, scheduleSource(workflowId));
    for (const schedule of schedules) {
      const next = planFires(schedule, { last: undefined, now, grace: 0 }).next;
      out.push({
        tenant,
        workflowId,
        version,
        schedule,
        lastFire: last?.time,
        nextFire: next === undefined ? undefined : new Date(next).toISOString(),
      });
    }
  }
  return out;
}

export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private running: Promise<void> | undefined;
  private readonly pollMs: number;

  constructor(private readonly o: SchedulerOptions) {
    this.pollMs = o.pollMs ?? 60_000;
  }

  /**
   * Fires what is due now for every scheduled workflow, in time order per workflow (so the last
   * fire handled only moves forward), and answers the earliest next fire (ms), if any.
   */
  async tick(): Promise<number | undefined> {
    const now = this.o.clock();
    let earliest: number | undefined;
    for (const tenant of await this.o.tenants()) {
      let scheduled: ScheduledWorkflow[];
      try {
        scheduled = await scheduledWorkflows(this.o.store, tenant, now);
      } catch (e) {
        this.o.log?.({ kind: 'error', tenant, message: String(e) });
        continue;
      }
      for (const w of scheduled) {
        const last = w.lastFire === undefined ? undefined : Date.parse(w.lastFire);
        const plan = planFires(w.schedule, { last, now, grace: FIRE_GRACE_MS });
        for (const f of plan.due) {
          const event = fireEvent(w.workflowId, w.schedule, f);
          try {
            const r = await this.o.emit(tenant, event);
            this.o.log?.({
              kind: 'fired',
              tenant,
              workflowId: w.workflowId,
              scheduledFor: String(event.time),
              catchUp: f.catchUp,
              runs: r.runs.length,
              redelivery: r.redelivery === true,
            });
          } catch (e) {
            // Another scheduler named this fire first with the other catch-up mark: it ran there.
            if (isKeelError(e) && e.code === ErrorCode.eventConflict) continue;
            this.o.log?.({ kind: 'error', tenant, workflowId: w.workflowId, message: String(e) });
            break;
          }
        }
        if (plan.next !== undefined && (earliest === undefined || plan.next < earliest)) earliest = plan.next;
      }
    }
    return earliest;
  }

  /** Starts the loop: a tick now, then one timer until the next fire (at most `pollMs`). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.arm(0);
  }

  private arm(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .catch((e) => {
          this.o.log?.({ kind: 'error', message: String(e) });
          return undefined;
        })
        .then((next) => {
          const wait = next === undefined ? this.pollMs : Math.max(0, next - this.o.clock());
          this.arm(Math.min(wait, this.pollMs));
        });
    }, ms);
    this.timer.unref?.();
  }

  /** Stops the loop after the tick in progress, if any. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}

/**
 * The scheduler `keel serve` and `keel worker` run beside their worker loops: every tenant with a
 * LIVE or AUTONOMOUS version, fires emitted through `keel.events.emit`, the wall clock.
 */
export function keelScheduler(
  keel: Pick<Keel, 'store' | 'events'>,
  o: { readonly pollMs?: number; readonly log?: (e: SchedulerEvent) => void } = {},
): Scheduler {
  return new Scheduler({
    store: keel.store,
    emit: (tenant, value) => keel.events.emit(tenant, value, { channel: 'schedule' }),
    tenants: () => keel.store.registry.routableTenants(),
    clock: () => Date.now(),
    ...o,
  });
}
