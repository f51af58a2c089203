/**
 * A run's OpenWOP events over HTTP: Server-Sent Events (backlog, then live, then closed after the
 * terminal event), JSON `{events}` when the client does not ask for SSE, and the v2 long poll.
 *
 * Live events are found by watching the run's ledger head in the store (every `WATCH_MS`): the
 * stream is a projection of whatever the ledger holds, so an event reaches a subscriber only after
 * its entry is committed, whichever process wrote it.
 */
import type { Context } from 'hono';
import { OpenWopHost, type Principal, TERMINAL_WIRE } from '../openwop/host.ts';
import { type OpenWopEvent, TERMINAL_EVENT_TYPES } from '../openwop/project-events.ts';
import { ProtocolError } from '../openwop/protocol-error.ts';
import type { Major } from '../openwop/run-ids.ts';

const WATCH_MS = 25;
/** Event streams one process holds open at most (`keel serve` option maxEventStreams). */
export const DEFAULT_MAX_EVENT_STREAMS = 512;
/** How often an idle stream sends a comment line (the spec asks for at least every 30 s). */
export const KEEP_ALIVE_MS = 15_000;
const STREAM_MODE = /^(values|(updates|messages|debug)(,(updates|messages|debug))*)$/;
const SUPPORTED_MODES = ['updates', 'debug'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Which events a stream mode carries (v1 streams carry everything, as v1 hosts did). */
function modeFilter(mode: string, major: Major): (e: OpenWopEvent) => boolean {
  if (major === 1 || mode.split(',').includes('debug')) return () => true;
  // v2 `updates`: transitions, terminal node events, suspensions and interrupts; not node.started.
  return (e) => e.type !== 'node.started';
}

function readMode(c: Context): string {
  const mode = c.req.query('streamMode') ?? 'updates';
  if (!STREAM_MODE.test(mode) || mode.split(',').some((m) => !SUPPORTED_MODES.includes(m)))
    throw new ProtocolError(
      'unsupported_stream_mode',
      `streamMode ${JSON.stringify(mode)} is not served; use updates or debug`,
      {
        supported: SUPPORTED_MODES,
      },
    );
  return mode;
}

function readAfter(raw: string | undefined, field: string): number {
  if (raw === undefined || raw === '') return -1;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < -1)
    throw new ProtocolError('validation_error', `${field}: expected an integer >= 0`, { field });
  return n;
}

/**
 * How many event streams are open in this process, against a limit: a stream over the limit is
 * refused with `429 rate_limited` and `Retry-After`, never dropped silently.
 */
export class StreamSlots {
  private open = 0;
  constructor(
    readonly max: number,
    /** How often an idle stream sends `: keep-alive`. */
    readonly keepAliveMs: number = KEEP_ALIVE_MS,
  ) {}
  take(): boolean {
    if (this.open >= this.max) return false;
    this.open++;
    return true;
  }
  give(): void {
    this.open--;
  }
}

export async function streamEvents(
  c: Context,
  host: OpenWopHost,
  p: Principal,
  runId: string,
  major: Major,
  slots: StreamSlots,
): Promise<Response> {
  const mode = readMode(c);
  const keep = modeFilter(mode, major);
  const all = await host.events(p, runId, major); // also the existence check, before any header is sent
  const accept = c.req.header('Accept') ?? '';
  if (!accept.includes('text/event-stream')) {
    const from = readAfter(c.req.query('fromSequence') ?? c.req.query('afterSequence'), 'fromSequence');
    const start = c.req.query('fromSequence') !== undefined ? from - 1 : from;
    return c.json({ events: all.map((x) => x.event).filter((e) => e.sequence > start && keep(e)) });
  }
  let last = readAfter(c.req.header('Last-Event-ID'), 'Last-Event-ID');
  if (!slots.take())
    return c.json(
      {
        error: 'rate_limited',
        message: `this server holds ${slots.max} event streams open already; retry shortly`,
      },
      429,
      { 'Retry-After': '5', 'OpenWOP-Version': major === 1 ? '1.0' : '2.0' },
    );
  let closed = false;
  /** The client went away: nothing more may be written to the stream. */
  let cancelled = false;
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const write = (s: string) => controller.enqueue(encoder.encode(s));
      let events = all.map((x) => x.event);
      let lastBeat = Date.now();
      let head = -1;
      try {
        while (!closed) {
          for (const e of events) {
            if (e.sequence <= last) continue;
            last = e.sequence;
            if (keep(e)) write(`id: ${e.sequence}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
            if (TERMINAL_EVENT_TYPES.has(e.type)) closed = true;
          }
          if (closed) break;
          // Wait for the ledger head to move, with a comment line now and then to keep proxies open.
          for (;;) {
            await sleep(WATCH_MS);
            if (closed) break;
            if (Date.now() - lastBeat >= slots.keepAliveMs) {
              write(': keep-alive\n\n');
              lastBeat = Date.now();
            }
            const h = await host.head(p, runId);
            if (h.seq !== head) {
              head = h.seq;
              break;
            }
          }
          if (!closed) events = (await host.events(p, runId, major)).map((x) => x.event);
        }
      } catch {
        // A failed read ends the stream with an error frame; its cause is not sent to the client.
        if (!cancelled)
          write(
            `event: error\ndata: ${JSON.stringify({ error: 'internal_error', message: 'the event stream failed; reconnect with Last-Event-ID' })}\n\n`,
          );
      } finally {
        slots.give();
        if (!cancelled) controller.close();
      }
    },
    cancel() {
      cancelled = true;
      closed = true;
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      'OpenWOP-Version': major === 1 ? '1.0' : '2.0',
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
  const deadline = Date.now() + timeout * 1000;
  let all: OpenWopEvent[] = [];
  let seen = Number.NaN;
  for (;;) {
    // One row read per round; the ledger is projected again only when its head moved.
    const head = await host.head(p, runId);
    if (head.seq !== seen) {
      all = (await host.events(p, runId, major)).map((x) => x.event);
      seen = head.seq;
    }
    const events = all.filter((e) => e.sequence > after);
    const status = OpenWopHost.wireStatus(head.status);
    const isTerminal = TERMINAL_WIRE.has(status);
    if (events.length > 0 || isTerminal || Date.now() >= deadline) {
      const lastSequence = all.length - 1;
      return major === 1
        ? {
            runId: all[0]?.runId,
            events,
            lastSequence,
            lastEventSeq: lastSequence,
            status,
            runStatus: status,
            isTerminal,
          }
        : { runId: all[0]?.runId, events, lastSequence, status, isTerminal };
    }
    await sleep(WATCH_MS * 4);
  }
}
