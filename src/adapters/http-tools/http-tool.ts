/**
 * An HTTP tool: a checked `HttpToolSpec` (core/tools) as a tool definition whose handler sends one
 * request with node:http(s). It reads each `{{secret.NAME}}` from the environment at call time and
 * never lets a secret's value out of the request: outputs, errors and excerpts are masked, in every
 * encoding a server may echo one in (core/tools/secret-mask.ts).
 *
 * Retries only where safe: a `read` tool, or one that declares an idempotency header (the step's
 * idempotency key goes in it), retries timeouts, dropped connections, 408/425/429 and 5xx with a
 * bounded backoff. Any other call that timed out or lost its connection after the request was sent
 * throws `outcomeUnknown`: the walk suspends the run for reconciliation and never repeats it. A
 * non-2xx answer is a step failure with the status and a bounded excerpt; redirects are not followed.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import { JSON_LIMITS, measureValue } from '../../core/spec/index.ts';
import {
  type HttpRequestPlan,
  type HttpToolSpec,
  type ReconcileCheck,
  renderHttpRequest,
  renderJson,
  type SecretMask,
  secretMask,
} from '../../core/tools/index.ts';
import {
  outcomeUnknown,
  type ToolContext,
  type ToolDefinition,
  type ToolReconciler,
} from '../../ports/index.ts';

export interface HttpToolOptions {
  /** Reads a secret by name at call time; the process environment by default. */
  readonly env?: (name: string) => string | undefined;
}

/** Statuses worth asking again when a retry is safe. */
const RETRY_STATUSES = new Set([408, 425, 429, 500, 502, 503, 504]);
/** The most characters of a response body a failure message quotes. */
export const BODY_EXCERPT_CHARS = 300;
/** The longest single backoff wait, ms. */
const MAX_BACKOFF_MS = 5_000;

type Exchange =
  | { readonly kind: 'response'; readonly status: number; readonly type: string; readonly body: Buffer }
  /** Nothing reached the server (refused, unresolvable): the effect cannot have happened. */
  | { readonly kind: 'unsent'; readonly why: string }
  /** The request may have reached the server, but no whole answer came back. */
  | { readonly kind: 'lost'; readonly why: string }
  | { readonly kind: 'too_large'; readonly status: number }
  | { readonly kind: 'cancelled' };

function failure(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

export function httpTool(spec: HttpToolSpec, o: HttpToolOptions = {}): ToolDefinition {
  const env = o.env ?? ((name: string) => process.env[name]);
  const d = spec.descriptor;
  /** A retry is safe: a read, or the server deduplicates by the idempotency header. */
  const retrySafe = d.effect === 'read' || spec.idempotencyHeader !== undefined;
  const attempts = retrySafe ? 1 + spec.retries : 1;
  const simulated = spec.simulate;
  /** Each secret the templates read, from the environment, now. */
  const readSecrets = () => {
    const secrets = new Map<string, string>();
    for (const name of spec.secrets) {
      const v = env(name);
      if (v === undefined || v === '')
        throw failure('secret_missing', `secret ${name} is not set in the environment`);
      secrets.set(name, v);
    }
    return secrets;
  };
  return {
    ...d,
    // A simulated run's stand-in: the declared answer over the arguments; nothing is sent.
    ...(simulated !== undefined
      ? {
          simulate: (args: Record<string, unknown>) =>
            renderJson(simulated, { args, secrets: new Map() }) ?? null,
        }
      : {}),
    ...(spec.reconcile ? { reconcile: reconcileWith(spec, spec.reconcile, readSecrets) } : {}),
    async handler(args: Record<string, unknown>, ctx: ToolContext) {
      const secrets = readSecrets();
      const mask = secretMask(secrets);
      const rendered = renderHttpRequest(spec, { args, secrets }, ctx.idempotencyKey);
      if (!rendered.ok) throw failure('invalid_arguments', `${rendered.field}: ${rendered.problem}`);
      const req = rendered.request;
      // Where the call went, as errors may say it: the origin and path, never the query.
      const where = mask.text(`${req.method} ${whereOf(req.url)}`);
      let last = '';
      for (let attempt = 1; attempt <= attempts; attempt++) {
        if (attempt > 1) await backoff(spec.backoffMs * 2 ** (attempt - 2), ctx.signal);
        const x = await exchange(req, spec.timeoutMs, spec.maxResponseBytes, ctx.signal);
        if (x.kind === 'cancelled') throw failure('cancelled', 'the call was cancelled');
        if (x.kind === 'response') {
          if (x.status >= 200 && x.status < 300) return answerOf(x, mask);
          const text = mask.text(x.body.toString('utf8'));
          last = `${where} answered HTTP ${x.status}: ${excerpt(text)}`;
          if (retrySafe && RETRY_STATUSES.has(x.status) && attempt < attempts) continue;
          throw failure('http_status', last);
        }
        if (x.kind === 'too_large') {
          throw failure(
            'response_too_large',
            `${where} answered HTTP ${x.status} with more than ${spec.maxResponseBytes} bytes (maxResponseBytes)`,
          );
        }
        last = `${where}: ${mask.text(x.why)}`;
        if (x.kind === 'unsent') {
          if (attempt < attempts) continue;
          throw failure('http_unreachable', last);
        }
        // Lost: the effect may have happened.
        if (attempt < attempts) continue;
        if (d.effect === 'read') throw failure('http_timeout', last);
        throw outcomeUnknown(`${last}; the effect may have happened, so the call is not made again`);
      }
      throw new KeelError(ErrorCode.internal, `${d.name}: no attempt was made`, { tool: d.name });
    },
  };
}

/**
 * The tool's reconcile check: a GET by the call's idempotency key. 2xx: the call happened (the
 * answer, masked, is the step's output); a `notFound` status: it did not; anything else throws,
 * leaving the decision to a person. Never retried, never acts.
 */
function reconcileWith(
  spec: HttpToolSpec,
  check: ReconcileCheck,
  readSecrets: () => Map<string, string>,
): ToolReconciler {
  return async (args, ctx) => {
    const secrets = readSecrets();
    const mask = secretMask(secrets);
    const rendered = renderHttpRequest(check, { args, secrets }, ctx.idempotencyKey);
    if (!rendered.ok) throw failure('invalid_arguments', `reconcile.${rendered.field}: ${rendered.problem}`);
    const req = rendered.request;
    const where = mask.text(`${req.method} ${whereOf(req.url)}`);
    const x = await exchange(req, spec.timeoutMs, spec.maxResponseBytes, undefined);
    if (x.kind === 'response') {
      if (x.status >= 200 && x.status < 300) return { happened: true, output: answerOf(x, mask) };
      if (check.notFound.includes(x.status)) {
        // "Did not happen" proposes the step again; the engine bounds how often (effects.ts).
        return { happened: false };
      }
      throw failure(
        'http_status',
        `${where} answered HTTP ${x.status}: ${excerpt(mask.text(x.body.toString('utf8')))}`,
      );
    }
    if (x.kind === 'too_large')
      throw failure('response_too_large', `${where} answered more than ${spec.maxResponseBytes} bytes`);
    throw failure('http_unreachable', `${where}: ${x.kind === 'cancelled' ? 'cancelled' : mask.text(x.why)}`);
  };
}

/** The origin and path of a URL (never its query), the path decoded so a secret in it is masked. */
function whereOf(url: string): string {
  const u = new URL(url);
  try {
    return `${u.origin}${decodeURIComponent(u.pathname)}`;
  } catch {
    return `${u.origin}${u.pathname}`;
  }
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > BODY_EXCERPT_CHARS ? `${flat.slice(0, BODY_EXCERPT_CHARS)}…` : flat || '(empty body)';
}

/**
 * A 2xx body as the step's output, secrets masked: JSON when it is JSON — masked on its decoded
 * strings and numbers, so an echo JSON-escaped (`sk\/tok`) or as a number is caught — else the text,
 * masked in every encoding it may carry a secret in (an empty body is null). JSON nested past
 * JSON_LIMITS is refused before anything walks it.
 */
function answerOf(x: { type: string; body: Buffer }, mask: SecretMask): unknown {
  const text = x.body.toString('utf8');
  if (text.length === 0) return null;
  if (/json/i.test(x.type) || /^\s*[[{]/.test(text)) {
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch {
      if (/json/i.test(x.type))
        throw failure('invalid_response', `the response says ${x.type} but is not valid JSON`);
      return mask.text(text);
    }
    const breach = measureValue(value, { ...JSON_LIMITS, maxBytes: Number.MAX_SAFE_INTEGER });
    if (breach)
      throw failure('invalid_response', `the response is past the limit ${breach.limit} (${breach.max})`);
    return mask.value(value);
  }
  return mask.text(text);
}

function backoff(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, Math.min(ms, MAX_BACKOFF_MS));
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Codes of a connection that never carried the request. */
const UNSENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** One request and its whole answer, bounded in time and size. */
function exchange(
  plan: HttpRequestPlan,
  timeoutMs: number,
  maxBytes: number,
  signal: AbortSignal | undefined,
): Promise<Exchange> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve({ kind: 'cancelled' });
    let settled = false;
    let connected = false;
    const finish = (x: Exchange) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      req.destroy();
      resolve(x);
    };
    const send = plan.url.startsWith('https:') ? httpsRequest : httpRequest;
    const body = plan.body === undefined ? undefined : Buffer.from(plan.body, 'utf8');
    const req = send(plan.url, {
      method: plan.method,
      headers: { ...plan.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
      agent: false,
    });
    // Not connected yet: nothing was sent, so the effect cannot have happened.
    const timer = setTimeout(
      () =>
        finish(
          connected
            ? { kind: 'lost', why: `no answer within ${timeoutMs} ms (timeoutMs)` }
            : { kind: 'unsent', why: `no connection within ${timeoutMs} ms (timeoutMs)` },
        ),
      timeoutMs,
    );
    const onAbort = () => finish({ kind: 'cancelled' });
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('socket', (s) => {
      if (!s.connecting) connected = true;
      else s.once('connect', () => (connected = true));
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      const code = e.code ?? 'error';
      if (!connected && UNSENT.has(code)) finish({ kind: 'unsent', why: `cannot connect (${code})` });
      else finish({ kind: 'lost', why: `the connection was dropped (${code})` });
    });
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxBytes) return finish({ kind: 'too_large', status: res.statusCode ?? 0 });
        chunks.push(c);
      });
      res.on('end', () =>
        finish({
          kind: 'response',
          status: res.statusCode ?? 0,
          type: String(res.headers['content-type'] ?? ''),
          body: Buffer.concat(chunks),
        }),
      );
      res.on('error', () => finish({ kind: 'lost', why: 'the answer was cut off' }));
      res.on('aborted', () => finish({ kind: 'lost', why: 'the answer was cut off' }));
    });
    req.end(body);
  });
}
