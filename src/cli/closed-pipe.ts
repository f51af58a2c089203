/**
 * A closed pipe: `keel runs ls | head` stops reading after ten lines and closes its end, and every
 * later write to stdout fails with EPIPE. Unhandled, Node throws that from the stream and prints a
 * stack trace. A reader that has read enough is no failure of the command: what is still to print
 * is dropped, the command finishes what it was doing (a write it started still commits, never cut
 * off half-way) and exits with its own code, printing nothing about the pipe. Any other write error
 * is still thrown.
 */

/** Makes EPIPE on `stream` end its output quietly; returns whether the pipe has closed so far. */
export function quietOnClosedPipe(stream: NodeJS.WriteStream): () => boolean {
  let closed = false;
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    closed = true;
    // Nothing more reaches the reader: later writes are dropped rather than failing again.
    stream.write = ((_chunk: unknown, ...rest: unknown[]) => {
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      if (done) process.nextTick(done);
      return true;
    }) as typeof stream.write;
  });
  return () => closed;
}
