/**
 * The heads a checkpoint reads, as streams in creation order: a store's paged reads one by one
 * (`pages`), the runs it holds merged with those retention removed (`allHeads`), and the head log
 * row by row (`headLog`). Reads only; nothing here judges or signs.
 */
import type { CheckpointHead, LogCursor, Store } from '../../ports/index.ts';

/** How many heads (or head log rows) one read of the store brings. */
export const PAGE = 10_000;

/** Heads of a paged source, one by one, in creation order. */
export async function* pages(read: (after: CheckpointHead | undefined) => Promise<CheckpointHead[]>) {
  let after: CheckpointHead | undefined;
  for (;;) {
    const page = await read(after);
    yield* page;
    if (page.length < PAGE) return;
    after = page[page.length - 1];
  }
}

/** Creation order of heads (then run id): the order of every stream here and of a checkpoint's leaves. */
export const order = (a: CheckpointHead, b: CheckpointHead) =>
  a.createdAt < b.createdAt
    ? -1
    : a.createdAt > b.createdAt
      ? 1
      : a.runId < b.runId
        ? -1
        : a.runId > b.runId
          ? 1
          : 0;

/** Two head streams in creation order, merged into one (each run is in exactly one of them). */
async function* merged(a: AsyncGenerator<CheckpointHead>, b: AsyncGenerator<CheckpointHead>) {
  let x = await a.next();
  let y = await b.next();
  while (!x.done || !y.done) {
    if (y.done || (!x.done && order(x.value, y.value) <= 0)) {
      yield x.value;
      x = await a.next();
    } else {
      yield y.value;
      y = await b.next();
    }
  }
}

/** Every head a checkpoint covers: the runs the store holds and those retention removed. */
export const allHeads = (store: Store, tenant: string) =>
  merged(
    pages((after) => store.checkpoints.runHeads(tenant, { ...(after ? { after } : {}), limit: PAGE })),
    pages((after) => store.checkpoints.retainedHeads(tenant, { ...(after ? { after } : {}), limit: PAGE })),
  );

/** The head log, row by row, in checkpoint order (checkpoint seq, then creation order). */
export async function* headLog(store: Store, tenant: string) {
  let after: LogCursor | undefined;
  for (;;) {
    const page = await store.checkpoints.checkpointLog(tenant, { ...(after ? { after } : {}), limit: PAGE });
    yield* page;
    if (page.length < PAGE) return;
    const l = page[page.length - 1]!;
    after = { checkpointSeq: l.checkpointSeq, createdAt: l.createdAt, runId: l.runId };
  }
}
