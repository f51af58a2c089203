/**
 * Live OpenWOP event feeds: one watcher per run in this process, however many streams and polls
 * read it. A feed projects its run's ledger once, then only the entries appended since
 * (`EventProjector`), when the store says the run has new entries (`Ledger.onAppended`: NOTIFY on
 * PostgreSQL, this process's appends and other processes' commits on SQLite; this process's own
 * appends on SQLite come with their entries, taken without reading them back). A slow poll per feed
 * (`fallbackPollMs`) keeps a missed notification from ever hanging a reader. Readers are told that
 * events were added; each keeps its own cursor into the feed's events.
 *
 * It reads ledgers and projects them; it never writes, and never reads a run outside the tenant it
 * was opened for. The caller checks that the run exists in that tenant before opening a feed.
 */
import { decodeEntry, type Entry, type PayloadOf, type StoredEntry } from '../core/ledger/index.ts';
import type { AppendListener } from '../ports/index.ts';
import { EventProjector, type ProjectedEvent } from './project-events.ts';

/** What feeds read: the store's entries and its append notifications. */
export interface FeedSource {
  readEntries(tenant: string, runId: string, fromSeq?: number, limit?: number): Promise<StoredEntry[]>;
  onAppended(listener: AppendListener): Promise<() => Promise<void>>;
}

/** How often a feed looks at its run's ledger when nothing told it to (ms): the safety net. */
export const FALLBACK_POLL_MS = 10_000;

/**
 * Projects a run's ledger (its first `upTo` entries, or all) into events named by `wireRunId`. A
 * fork's inherited entries become its source's events (recursively, for a fork of a fork).
 */
export async function projectRun(
  src: Pick<FeedSource, 'readEntries'>,
  tenant: string,
  runId: string,
  wireRunId: string,
  upTo?: number,
  /** The run's entries from its first, decoded, when the caller has them: not read again. */
  known?: readonly Entry[],
): Promise<EventProjector> {
  const entries: readonly Entry[] = known ?? (await src.readEntries(tenant, runId, 0, upTo)).map(decodeEntry);
  const p = new EventProjector(wireRunId);
  const fork = (entries[0]?.payload as PayloadOf<'run.started'> | undefined)?.forkOf;
  const inherited = fork ? Math.min(fork.fromSeq, entries.length) : 0;
  if (fork && inherited >= 1) {
    const source = await projectRun(src, tenant, fork.runId, wireRunId, inherited);
    p.inherit(source.events, entries.slice(0, inherited));
    p.push(entries.slice(inherited));
  } else p.push(entries);
  return p;
}

/** A reader's view of a feed: its events so far, whether the run has ended, and how to leave. */
export interface FeedReader {
  readonly events: readonly ProjectedEvent[];
  /** True once the run's terminal event is among `events`: nothing will follow it. */
  readonly terminal: boolean;
  /** A failed read of the ledger, if the feed stopped on one (the reader should end). */
  readonly failure: unknown;
  close(): void;
}

class RunFeed {
  readonly readers = new Set<() => void>();
  failure: unknown;
  private refreshing: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly src: FeedSource,
    readonly tenant: string,
    readonly runId: string,
    readonly projector: EventProjector,
    private readonly fallbackPollMs: number,
  ) {}

  /**
   * Reads the entries appended since the last read and tells the readers what it added; one read
   * at a time (a call meanwhile makes it read once more), then the fallback poll is re-armed.
   */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    if (this.timer) clearTimeout(this.timer);
    this.refreshing = (async () => {
      do {
        this.again = false;
        try {
          const stored = await this.src.readEntries(this.tenant, this.runId, this.projector.nextSeq);
          if (this.projector.push(stored.map(decodeEntry)).length > 0) this.tell();
        } catch (e) {
          this.failure = e;
          this.tell();
          return;
        }
      } while (this.again && !this.projector.terminal);
    })().finally(() => {
      this.refreshing = undefined;
      this.arm();
    });
    return this.refreshing;
  }

  /** Arms the fallback poll (again), unless nothing is left to find. */
  arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped || this.projector.terminal || this.failure !== undefined) return;
    // Staggered, so feeds opened together do not poll together.
    this.timer = setTimeout(() => this.refresh(), this.fallbackPollMs * (0.75 + Math.random() / 2));
    this.timer.unref();
  }

  /**
   * Entries this process just committed to the run: taken as they are when they continue the
   * feed's events and no read is under way (that read, or the one after it, sees them anyway);
   * else read back.
   */
  appended(entries: readonly StoredEntry[] | undefined): void {
    const next = this.projector.nextSeq;
    if (this.refreshing || !entries?.length || entries[0]!.seq > next) {
      void this.refresh();
      return;
    }
    if (entries.at(-1)!.seq < next) return; // read already
    const fresh = entries.filter((e) => e.seq >= next);
    if (this.projector.push(fresh.map(decodeEntry)).length > 0) this.tell();
    // Nothing follows a terminal event: the safety-net poll has nothing left to find.
    if (this.projector.terminal) this.arm();
  }

  private tell(): void {
    for (const r of this.readers) r();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** Runs whose entries this process appended lately that a feed may open on unread (the latest kept). */
export const RECENT_RUNS = 256;

export class RunFeeds {
  /**
   * This process's own appends of its latest runs, each whole from its first entry: a feed opened
   * on one starts from them, without reading the ledger back (the stream a client opens right
   * after posting the event). A gap, an append without its entries, or another process's commit
   * forgets them, and the feed reads the ledger as before.
   */
  private readonly recent = new Map<string, StoredEntry[]>();
  /** Feeds by tenant and run id, while they have readers. */
  private readonly feeds = new Map<string, RunFeed>();
  /** The same feeds by run id alone: what an append notification names. */
  private readonly byRun = new Map<string, Set<RunFeed>>();
  /** Feeds being created (the first projection is read once, however many readers arrive meanwhile). */
  private readonly opening = new Map<string, Promise<RunFeed>>();
  /** Feeds being created whose run was announced meanwhile: their projection may be behind. */
  private readonly heardWhileOpening = new Set<string>();
  private listening: Promise<unknown> | undefined;
  private stopListening: (() => Promise<void>) | undefined;

  constructor(
    private readonly src: FeedSource,
    private readonly o: { readonly fallbackPollMs?: number } = {},
  ) {}

  /**
   * Joins the feed of a run (creating it on first use); `onEvents` is called whenever events were
   * added or the feed failed. The returned reader is live until `close`.
   */
  async open(tenant: string, runId: string, onEvents: () => void, headSeq?: number): Promise<FeedReader> {
    this.listen();
    const key = `${tenant}\u0000${runId}`;
    let feed = this.feeds.get(key);
    if (feed?.failure !== undefined) {
      this.drop(key, feed);
      feed = undefined;
    }
    // A feed is joined only while it is registered: one dropped while this reader waited is made anew.
    while (!feed || this.feeds.get(key) !== feed) {
      let opening = this.opening.get(key);
      if (!opening) {
        opening = this.recentOf(tenant, runId, headSeq)
          .then((known) => projectRun(this.src, tenant, runId, runId, undefined, known))
          .then((projector) => {
            const f = new RunFeed(
              this.src,
              tenant,
              runId,
              projector,
              this.o.fallbackPollMs ?? FALLBACK_POLL_MS,
            );
            this.feeds.set(key, f);
            const same = this.byRun.get(runId) ?? new Set<RunFeed>();
            same.add(f);
            this.byRun.set(runId, same);
            // Announced while its projection was read: read what came since; else only arm the poll.
            if (this.heardWhileOpening.delete(key)) void f.refresh();
            else f.arm();
            return f;
          });
        this.opening.set(key, opening);
        const forget = () => {
          this.opening.delete(key);
          this.heardWhileOpening.delete(key);
        };
        opening.then(forget, forget);
      }
      feed = await opening;
    }
    const f = feed;
    const reader = () => onEvents();
    f.readers.add(reader);
    return {
      get events() {
        return f.projector.events;
      },
      get terminal() {
        return f.projector.terminal;
      },
      get failure() {
        return f.failure;
      },
      close: () => {
        f.readers.delete(reader);
        if (f.readers.size === 0) this.drop(key, f);
      },
    };
  }

  private drop(key: string, f: RunFeed): void {
    f.stop();
    if (this.feeds.get(key) === f) this.feeds.delete(key);
    const same = this.byRun.get(f.runId);
    same?.delete(f);
    if (same?.size === 0) this.byRun.delete(f.runId);
  }

  /** How many runs are watched now (one watcher each, whatever the number of readers). */
  get watched(): number {
    return this.feeds.size;
  }

  /** Starts listening for appends, once per process (kept for the life of the feeds). */
  private listen(): void {
    this.listening ??= this.src
      .onAppended((runId, entries) => this.appended(runId, entries))
      .then((stop) => {
        this.stopListening = stop;
      })
      .catch(() => {
        // No notifications (the store cannot LISTEN now): the feeds' own polls carry on; try again later.
        this.listening = undefined;
      });
  }

  /**
   * The run's entries this process appended, decoded, when they are whole, the tenant's and reach
   * `headSeq` (the head the caller saw: a commit it was told of is never missing); else undefined,
   * and the ledger is read. A store announces its appends just after they commit (SQLite: on the
   * next turn of the event loop), so a stream opened by a client that has the commit's answer can
   * come first: they are looked for once more a turn later. Without `headSeq`, never.
   */
  private async recentOf(tenant: string, runId: string, headSeq?: number): Promise<Entry[] | undefined> {
    if (headSeq === undefined) return undefined;
    const reaches = () => (this.recent.get(runId)?.length ?? 0) > headSeq;
    if (!reaches()) await new Promise((r) => setImmediate(r));
    if (!reaches()) return undefined;
    const entries = this.recent.get(runId)!.map(decodeEntry);
    const root = entries[0]?.payload as PayloadOf<'run.started'> | undefined;
    // A fork's inherited events are its source's: read as before.
    return root?.tenant === tenant && root.forkOf === undefined ? entries : undefined;
  }

  /** Keeps a run's own appends while they continue from its first entry (the latest RECENT_RUNS runs). */
  private remember(runId: string | undefined, entries: readonly StoredEntry[] | undefined): void {
    if (runId === undefined) {
      this.recent.clear();
      return;
    }
    const have = this.recent.get(runId);
    this.recent.delete(runId);
    if (!entries?.length) return;
    const first = entries[0]!.seq;
    if (first === 0) this.recent.set(runId, [...entries]);
    else if (have && have.length === first) {
      have.push(...entries);
      this.recent.set(runId, have);
    } else return;
    if (this.recent.size > RECENT_RUNS) this.recent.delete(this.recent.keys().next().value!);
  }

  private appended(runId?: string, entries?: readonly StoredEntry[]): void {
    this.remember(runId, entries);
    for (const key of this.opening.keys())
      if (runId === undefined || key.endsWith(`\u0000${runId}`)) this.heardWhileOpening.add(key);
    if (runId === undefined) {
      for (const feed of this.feeds.values()) void feed.refresh();
      return;
    }
    for (const feed of this.byRun.get(runId) ?? []) feed.appended(entries);
  }

  /** Stops listening and every feed's poll (the server is closing). */
  async close(): Promise<void> {
    for (const [key, f] of [...this.feeds]) this.drop(key, f);
    await this.listening;
    await this.stopListening?.();
    this.stopListening = undefined;
  }
}
