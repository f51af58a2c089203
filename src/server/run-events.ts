/**
 * A run's OpenWOP events over HTTP: Server-Sent Events (backlog, then live, then closed after the
 * terminal event — at once when the reader is already past it), JSON `{events}` when the client
 * does not ask for SSE, and the v2 long poll.
 *
 * Live events come from the run's feed (`RunFeeds`: one watcher per run in this process, woken by
 * the store's append notifications, projecting only new entries), so an event reaches a subscriber
 * only after its entry is committed, whichever process wrote it, and an idle stream costs nothing
 * but its keep-alive. Streams are limited per process and per tenant (`StreamSlots`): one more is
 * `429 rate_limited` with `Retry-After`, never dropped silently.
 */
import type { Context } from 'hono';
import { OpenWopHost, type Principal, TERMINAL_WIRE } from '../openwop/host.ts';
import { type OpenWopEvent, withRunId } from '../openwop/project-events.ts';
import { ProtocolError } from '../openwop/protocol-error.ts';
import { type Major, wireRunId } from '../openwop/run-ids.ts';
import { streamAnswer } from './stream-answer.ts';

/** Event streams one process holds open at most (`keel serve` option maxEventStreams). */
export const DEFAULT_MAX_EVENT_STREAMS = 512;
/** How often an idle stream sends a comment line (the spec asks for at least every 30 s). */
export const KEEP_ALIVE_MS = 15_000;
/** The largest `bufferMs` served (events.md: 0..5000). */
export const MAX_BUFFER_MS = 5000;
const STREAM_MODE = /^(values|(updates|messages|debug)(,(updates|messages|debug))*)$/;
const SUPPORTED_MODES = ['values', 'updates', 'messages', 'debug'];

/**
 * Which events a stream mode carries (v1 streams carry everything, as v1 hosts did, but for
 * `messages` alone). `messages` carries model-token chunks (`ai.message.chunk`); Keel streams no
 * model output token by token, so it carries nothing of its own: alone it sends no event and
 * closes after the run ends, and beside another mode it adds nothing (stream-modes.md §messages).
 */
function modeFilter(mode: string, major: Major): (e: OpenWopEvent) => boolean {
  const modes = mode.split(',');
  if (modes.every((m) => m === 'messages')) return () => false;
  if (major === 1 || modes.includes('debug')) return () => true;
  // v2 `updates`: transitions, terminal node events, suspensions and interrupts; not node.started.
  return (e) => e.type !== 'node.started';
}

function readMode(c: Context): string {
  const mode = c.req.query('streamMode') ?? 'updates';
  if (!STREAM_MODE.test(mode) || mode.split(',').some((m) => !SUPPORTED_MODES.includes(m)))
    throw new ProtocolError(
      'unsupported_stream_mode',
      `streamMode ${JSON.stringify(mode)} is not served; use values (alone), or updates, messages and debug`,
      { field: 'streamMode', supported: SUPPORTED_MODES },
    );
  return mode;
}

/** `bufferMs`: absent or 0 sends each event as its own frame; 1..5000 batches them. */
function readBufferMs(c: Context): number {
  const raw = c.req.query('bufferMs');
  if (raw === undefined) return 0;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < 0 || n > MAX_BUFFER_MS)
    throw new ProtocolError(
      'validation_error',
      `bufferMs: expected whole milliseconds from 0 to ${MAX_BUFFER_MS}, got ${JSON.stringify(raw)}`,
      { field: 'bufferMs', maxBufferMs: MAX_BUFFER_MS },
    );
  return n;
}

function readAfter(raw: string | undefined, field: string): number {
  if (raw === undefined || raw.trim() === '') return -1;
  const n = Number(raw);
  if (!/^\s*-?\d+\s*$/.test(raw) || !Number.isSafeInteger(n) || n < -1)
    throw new ProtocolError('validation_error', `${field}: expected an integer >= 0`, { field });
  return n;
}

/**
 * How many event streams are open in this process, against a limit for the process and one per
 * tenant (so one tenant cannot take every stream): a stream over either is refused with `429
 * rate_limited` and `Retry-After`, never dropped silently.
 */
export class StreamSlots {
  private open = 0;
  private readonly byTenant = new Map<string, number>();
  readonly maxPerTenant: number;
  constructor(
    readonly max: number,
    /** How often an idle stream sends `: keep-alive`. */
    readonly keepAliveMs: number = KEEP_ALIVE_MS,
    /** Streams one tenant may hold open at once (default: half the process's). */
    maxPerTenant?: number,
  ) {
    this.maxPerTenant = maxPerTenant ?? Math.max(1, Math.ceil(max / 2));
  }
  /** Takes a slot for `tenant`; the reason it cannot, if it cannot. */
  take(tenant: string): 'ok' | 'process' | 'tenant' {
    if (this.open >= this.max) return 'process';
    const mine = this.byTenant.get(tenant) ?? 0;
    if (mine >= this.maxPerTenant) return 'tenant';
    this.open++;
    this.byTenant.set(tenant, mine + 1);
    return 'ok';
  }
  give(tenant: string): void {
    this.open--;
    const mine = (this.byTenant.get(tenant) ?? 1) - 1;
    if (mine <= 0) this.byTenant.delete(tenant);
    else this.byTenant.set(tenant, mine);
  }
}

const versionOf = (major: Major) => (major === 1 ? '1.0' : '2.0');

/**
 * A run's events: SSE when the client asks for it (backlog past `Last-Event-ID`, then live, closed
 * after the terminal event), else JSON. The frames of one wake of the feed leave as one write.
 */
export async function streamEvents(
  c: Context,
  host: OpenWopHost,
  p: Principal,
  runId: string,
  major: Major,
  slots: StreamSlots,
): Promise<Response> {
  // Validation first (before content negotiation), then the existence check, then the cursor.
  const mode = readMode(c);
  const bufferMs = readBufferMs(c);
  const keep = modeFilter(mode, major);
  const accept = c.req.header('Accept') ?? '';
  if (!accept.includes('text/event-stream')) {
    const all = await host.events(p, runId, major);
    // values as JSON: the snapshot now, and the last sequence it covers.
    if (mode === 'values')
      return c.json({ lastSequence: all.length - 1, snapshot: await host.snapshot(p, runId, major) });
    const from = readAfter(c.req.query('fromSequence') ?? c.req.query('afterSequence'), 'fromSequence');
    const start = c.req.query('fromSequence') !== undefined ? from - 1 : from;
    return c.json({ events: all.map((x) => x.event).filter((e) => e.sequence > start && keep(e)) });
  }
  // not_found before any header is sent, and before the cursor is read; the head, so the feed
  // starts from no older a ledger than the one this request saw.
  const { seq: headSeq } = await host.head(p, runId);
  const cursor = readAfter(c.req.header('Last-Event-ID'), 'Last-Event-ID');
  const taken = slots.take(p.tenant);
  if (taken !== 'ok')
    return c.json(
      {
        error: 'rate_limited',
        message:
          taken === 'tenant'
            ? `this tenant holds ${slots.maxPerTenant} event streams open already; close one or retry shortly`
            : `this server holds ${slots.max} event streams open already; retry shortly`,
      },
      429,
      { 'Retry-After': '5', 'OpenWOP-Version': versionOf(major) },
    );
  const wire = wireRunId(runId, p.tenant, major);
  let finish: () => void = () => {};
  const headers = {
    'Content-Type': 'text/event-stream; charset=utf-8',
    // A tenant's run, as it happens: kept by no cache.
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    'OpenWOP-Version': versionOf(major),
  };
  return streamAnswer(c, headers, {
    async start(sink) {
      let last = cursor;
      let done = false;
      let batch: OpenWopEvent[] = [];
      let batchTimer: NodeJS.Timeout | undefined;
      const write = (s: string) => {
        if (!done) sink.write(s);
      };
      const flush = () => {
        if (batchTimer) clearTimeout(batchTimer);
        batchTimer = undefined;
        if (batch.length === 0) return;
        write(`id: ${batch.at(-1)!.sequence}\nevent: batch\ndata: ${JSON.stringify(batch)}\n\n`);
        batch = [];
      };
      let reader: Awaited<ReturnType<OpenWopHost['feed']>> | undefined;
      let beat: NodeJS.Timeout | undefined;
      finish = () => {
        if (done) return;
        flush();
        done = true;
        if (batchTimer) clearTimeout(batchTimer);
        if (beat) clearInterval(beat);
        reader?.close();
        slots.give(p.tenant);
      };
      const end = (error?: boolean) => {
        if (done) return;
        if (error)
          write(
            `event: error\ndata: ${JSON.stringify({ error: 'internal_error', message: 'the event stream failed; reconnect with Last-Event-ID' })}\n\n`,
          );
        finish();
        sink.end();
      };
      /**
       * values: one `state.snapshot` frame (the run snapshot, as GET /runs/{id} gives it) first, then
       * one whenever events arrive, its id the last sequence it covers; closed after the terminal one.
       */
      let snapshots: Promise<void> = Promise.resolve();
      let baseline = true;
      const pumpValues = () => {
        if (done || !reader) return;
        if (reader.failure !== undefined) {
          snapshots = snapshots.then(() => end(true));
          return;
        }
        const n = reader.events.length - 1;
        if (n <= last && !baseline) return;
        baseline = false;
        last = Math.max(last, n);
        const id = last;
        const ended = reader.terminal;
        snapshots = snapshots.then(async () => {
          if (done) return;
          const snap = await host.snapshot(p, runId, major);
          write(`id: ${id}\nevent: state.snapshot\ndata: ${JSON.stringify(snap)}\n\n`);
          if (ended) end();
        });
        snapshots = snapshots.catch(() => end(true));
      };
      /** Sends what the reader has past the cursor; ends the stream once the run has ended. */
      const pump = () => {
        if (mode === 'values') return pumpValues();
        if (done || !reader) return;
        const events = reader.events;
        // The frames of one wake leave as one chunk: one write to the socket, not one per event.
        let frames = '';
        for (let i = last + 1; i < events.length; i++) {
          const e = withRunId(events[i]!.event, wire);
          last = e.sequence;
          if (!keep(e)) continue;
          if (bufferMs === 0) {
            frames += `id: ${e.sequence}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
            continue;
          }
          batch.push(e);
          if (e.type === 'node.suspended') flush();
          else batchTimer ??= setTimeout(flush, bufferMs);
        }
        if (frames !== '') write(frames);
        if (reader.failure !== undefined) return end(true);
        // Closed after the terminal event: also when the cursor is at or past it (nothing to send).
        if (reader.terminal) end();
      };
      try {
        reader = await host.feed(p, runId, () => pump(), headSeq);
      } catch {
        return end(true);
      }
      // Cancelled while the feed opened: nothing is left to keep alive.
      if (done) {
        reader.close();
        return;
      }
      beat = setInterval(() => write(': keep-alive\n\n'), slots.keepAliveMs);
      if (bufferMs > 0) {
        // The backlog leaves as one batch.
        pump();
        flush();
      } else pump();
    },
    cancel() {
      finish();
    },
  });
}

/** The v2 poll: events after `afterSequence`, waiting up to `timeout` seconds for at least one. */
export async function pollEvents(c: Context, host: OpenWopHost, p: Principal, runId: string, major: Major) {
  const after = readAfter(c.req.query('afterSequence') ?? c.req.query('lastSequence'), 'afterSequence');
  const timeout = c.req.query('timeout') === undefined ? 30 : Number(c.req.query('timeout'));
  if (!Number.isInteger(timeout) || timeout < 0 || timeout > 60)
    throw new ProtocolError('validation_error', 'timeout: expected whole seconds from 0 to 60', {
      field: 'timeout',
    });
  const { seq: headSeq } = await host.head(p, runId);
  const wire = wireRunId(runId, p.tenant, major);
  let wake: () => void = () => {};
  const reader = await host.feed(p, runId, () => wake(), headSeq);
  try {
    const deadline = Date.now() + timeout * 1000;
    while (reader.events.length <= after + 1 && !reader.terminal && reader.failure === undefined) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    if (reader.failure !== undefined) throw reader.failure;
    const all = reader.events;
    const events = all.slice(after + 1).map((x) => withRunId(x.event, wire));
    const status = OpenWopHost.wireStatus((await host.head(p, runId)).status);
    const isTerminal = TERMINAL_WIRE.has(status);
    const lastSequence = all.length - 1;
    return major === 1
      ? {
          runId: wire,
          events,
          lastSequence,
          lastEventSeq: lastSequence,
          status,
          runStatus: status,
          isTerminal,
        }
      : { runId: wire, events, lastSequence, status, isTerminal };
  } finally {
    reader.close();
  }
}
