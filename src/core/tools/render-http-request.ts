/**
 * The request one call of an HTTP tool sends: its spec's templates rendered over the call's
 * arguments and the secrets' values. Pure; the only place a secret's value goes is the returned
 * request. A rendered URL must keep the spec's literal origin (and an argument may not be a "." or
 * ".." path segment), and a header value may not carry a
 * line break (no header injection through an argument).
 */

import { type RenderInput, renderJson, renderText } from './http-template.ts';
import type { HttpMethod, HttpToolSpec } from './http-tool-spec.ts';

export interface HttpRequestPlan {
  readonly method: HttpMethod;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

export type RenderedRequest =
  | { readonly ok: true; readonly request: HttpRequestPlan }
  | { readonly ok: false; readonly field: string; readonly problem: string };

const BAD_HEADER_CHARS = /[\r\n\0]/;

/** The parts of a spec a request is rendered from: the tool's own, or its reconcile check's. */
export type RequestTemplate = Pick<
  HttpToolSpec,
  'method' | 'url' | 'origin' | 'headers' | 'body' | 'idempotencyHeader'
>;

export function renderHttpRequest(
  spec: RequestTemplate,
  given: RenderInput,
  idempotencyKey?: string,
): RenderedRequest {
  const input = idempotencyKey === undefined ? given : { ...given, idempotencyKey };
  // "." and ".." stay as they are when percent-encoded and a URL resolves them as path segments,
  // so an argument that is one of them could move the call to another path: refused.
  let dotted = false;
  const url = renderText(spec.url, input, (v) => {
    if (v === '.' || v === '..') dotted = true;
    return encodeURIComponent(v);
  });
  if (dotted)
    return {
      ok: false,
      field: 'url',
      problem: 'a value in the URL is "." or "..", which would change its path',
    };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, field: 'url', problem: 'the rendered URL is not valid' };
  }
  if (parsed.origin !== spec.origin)
    return { ok: false, field: 'url', problem: `the rendered URL left ${spec.origin}` };
  const headers: Record<string, string> = {};
  for (const h of spec.headers) {
    const v = renderText(h.value, input);
    if (BAD_HEADER_CHARS.test(v))
      return { ok: false, field: `headers.${h.name}`, problem: 'the rendered value has a line break' };
    headers[h.name.toLowerCase()] = v;
  }
  if (spec.idempotencyHeader && idempotencyKey !== undefined)
    headers[spec.idempotencyHeader.toLowerCase()] = idempotencyKey;
  let body: string | undefined;
  if (spec.body?.kind === 'text') {
    body = renderText(spec.body.parts, input);
    headers['content-type'] ??= 'text/plain; charset=utf-8';
  } else if (spec.body?.kind === 'json') {
    body = JSON.stringify(renderJson(spec.body.value, input) ?? null);
    headers['content-type'] ??= 'application/json';
  }
  headers.accept ??= 'application/json';
  return {
    ok: true,
    request: { method: spec.method, url: parsed.href, headers, ...(body !== undefined ? { body } : {}) },
  };
}
