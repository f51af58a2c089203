/**
 * A streamed answer (Server-Sent Events) whose text is written as it comes. Under `keel serve`
 * (Node's HTTP server) it goes straight to Node's response: no web `ReadableStream` between the
 * frames and the socket, whose set-up and pumping cost a run's event stream more than its frames.
 * When the app is called as a plain fetch handler (`app.request` in tests, another runtime), the
 * same frames go through a `ReadableStream`. Either way the writer sees one `StreamSink`.
 */
import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import { notesOf } from '../app/index.ts';

/** Where a streamed answer's text goes. `end` closes the answer; a write after it is dropped. */
export interface StreamSink {
  write(text: string): void;
  end(): void;
}

export interface StreamWriter {
  /** Writes the answer; the headers leave with the first text, or once `start` has returned. */
  start(sink: StreamSink): Promise<void> | void;
  /** The client went away (or the answer ended): let go of what the writer holds. Called once or more. */
  cancel(): void;
}

/** A `200` streamed answer with `headers`, written by `writer`. */
export function streamAnswer(c: Context, headers: Record<string, string>, writer: StreamWriter): Response {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  return outgoing ? toNode(c, outgoing, headers, writer) : toFetch(headers, writer);
}

/**
 * Straight to Node's response. The request id, which the request's observer sets on an answer it
 * sees, is set here: the answer this returns is the adapter's "already sent" marker, which the
 * observer leaves alone.
 */
function toNode(
  c: Context,
  outgoing: ServerResponse,
  headers: Record<string, string>,
  writer: StreamWriter,
): Response {
  const requestId = notesOf(c)?.requestId;
  outgoing.writeHead(200, requestId === undefined ? headers : { ...headers, 'X-Request-Id': requestId });
  let ended = false;
  let wrote = false;
  // What one turn of the event loop writes leaves as one write (and the last text with the end).
  let pending = '';
  const flush = () => {
    if (ended || pending === '') return;
    outgoing.write(pending);
    pending = '';
  };
  outgoing.on('close', () => {
    ended = true;
    writer.cancel();
  });
  const sink: StreamSink = {
    write(text) {
      if (ended) return;
      wrote = true;
      if (pending === '') queueMicrotask(flush);
      pending += text;
    },
    end() {
      if (ended) return;
      ended = true;
      outgoing.end(pending);
      pending = '';
    },
  };
  const started = async () => {
    try {
      await writer.start(sink);
    } finally {
      // Nothing to send yet (a cursor past every event of a live run): the client still gets its headers now.
      if (!wrote && !ended) outgoing.flushHeaders();
    }
  };
  void started().catch(() => sink.end());
  return RESPONSE_ALREADY_SENT;
}

function toFetch(headers: Record<string, string>, writer: StreamWriter): Response {
  const encoder = new TextEncoder();
  let ended = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      return writer.start({
        write(text) {
          if (!ended) controller.enqueue(encoder.encode(text));
        },
        end() {
          if (ended) return;
          ended = true;
          controller.close();
        },
      });
    },
    cancel() {
      ended = true;
      writer.cancel();
    },
  });
  return new Response(body, { status: 200, headers });
}

/** True for the answer `streamAnswer` returns once it has written to Node's response itself. */
export function sentAlready(res: Response): boolean {
  return res === RESPONSE_ALREADY_SENT;
}
