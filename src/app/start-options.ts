/**
 * What a caller may say about the runs it starts (`runs.start`, `events.emit`): how they are
 * walked, the writ they act under, the trace they belong to — checked here once, for both.
 */
import { ErrorCode, KeelError } from '../core/errors.ts';
import { formatTraceParent, parseTraceParent } from '../core/telemetry/index.ts';
import { checkOnWalk, type OnWalk, type StartWalk } from '../engine/index.ts';

export interface StartOptions {
  /** `background` (with `onWalk`): answered once the run's root is durable, walked on here at once. */
  readonly walk?: StartWalk;
  /** With walk `background`: told of each new run's walk (`keel serve` tracks it until it stops). */
  readonly onWalk?: OnWalk;
  /** The writ the run executes under: a writ file's value `{chain: [root, ..., writ]}`, or the chain. */
  readonly writ?: { readonly chain: readonly unknown[] } | readonly unknown[];
  /**
   * The W3C `traceparent` of the request that starts the run: recorded in its root when valid
   * (the run's span becomes the caller's child), ignored when not (as W3C Trace Context asks).
   */
  readonly traceparent?: string;
}

/** Start options as the engine takes them: the writ as its chain, a valid traceparent normalised. */
export interface StartWith {
  walk?: StartWalk;
  onWalk?: OnWalk;
  writ?: readonly unknown[];
  traceparent?: string;
}

/** The options checked (a writ that is neither a chain nor `{chain}` is writ_invalid) and normalised. */
export function startOptions(o: StartOptions): StartWith {
  const w = o.writ;
  const chain = w === undefined ? undefined : Array.isArray(w) ? w : (w as { chain?: unknown }).chain;
  if (w !== undefined && !Array.isArray(chain))
    throw new KeelError(ErrorCode.writInvalid, 'writ: expected {"chain": [root, ..., writ]} or the chain', {
      field: 'writ',
    });
  checkOnWalk(o);
  const trace = o.traceparent === undefined ? undefined : parseTraceParent(o.traceparent);
  return {
    ...(o.walk ? { walk: o.walk } : {}),
    ...(o.onWalk ? { onWalk: o.onWalk } : {}),
    ...(chain ? { writ: chain as readonly unknown[] } : {}),
    ...(trace?.ok ? { traceparent: formatTraceParent(trace.value) } : {}),
  };
}
