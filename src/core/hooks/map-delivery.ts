/**
 * A verified delivery -> the canonical event it names: the body read as one JSON value (UTF-8, no
 * key twice, within JSON_LIMITS, canonical), checked against the hook's body schema, then the
 * hook's mapping rendered over `body` and `headers`. `time` may map to an RFC 3339 text or to whole
 * Unix seconds (a payment provider's `created`); `id` to a text or a whole number. Without a
 * `payload` mapping, an object body is the payload. Pure: each refusal is a value naming the field.
 */
import { canonicalize } from '../canonical/index.ts';
import { ErrorCode, isKeelError } from '../errors.ts';
import { parseEvent } from '../run/index.ts';
import { checkValueLimits, excerpt, JSON_LIMITS, parseJsonText } from '../spec/index.ts';
import { type ArgProblem, validateValue } from '../tools/index.ts';
import { type HookSpec, hookSource } from './hook-spec.ts';
import {
  type DeliveryScope,
  type HookTemplate,
  renderHookTemplate,
  renderTemplateValue,
} from './hook-template.ts';
import { FORM_MEDIA_TYPE, formMediaType, readFormBody } from './read-form-body.ts';

/** Why a delivery does not make an event. */
export type MappingRefusal =
  /** The body is not one well-formed canonical JSON value (400). */
  | { readonly reason: 'body_invalid'; readonly field: string; readonly message: string }
  /** The body is nested, keyed or long past JSON_LIMITS (413). */
  | { readonly reason: 'body_too_large'; readonly field: string; readonly message: string }
  /** The body fails the hook's schema (422), each problem named. */
  | {
      readonly reason: 'body_schema';
      readonly field: string;
      readonly message: string;
      readonly problems: readonly ArgProblem[];
    }
  /** The mapping finds nothing, or makes no valid event (422). */
  | { readonly reason: 'mapping_failed'; readonly field: string; readonly message: string };

export interface MappedEvent {
  readonly id: string;
  readonly type: string;
  readonly source: string;
  readonly subject?: string;
  readonly payload: Record<string, unknown>;
  readonly time: string;
}

export type Mapping =
  | { readonly ok: true; readonly event: MappedEvent }
  | ({ readonly ok: false } & MappingRefusal);

const utf8 = new TextDecoder('utf-8', { fatal: true });
const no = (r: MappingRefusal): Mapping => ({ ok: false, ...r });

/**
 * The body as a value, or why not: one JSON value, or — when its Content-Type is
 * `application/x-www-form-urlencoded` (read-form-body.ts) — the object of its form fields.
 */
export function readDeliveryBody(
  bytes: Uint8Array,
  contentType?: string,
): { ok: true; value: unknown } | ({ ok: false } & MappingRefusal) {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, reason: 'body_invalid', field: '(body)', message: 'the body is not valid UTF-8' };
  }
  const media = formMediaType(contentType);
  if (typeof media === 'object')
    return {
      ok: false,
      reason: 'body_invalid',
      field: '(body)',
      message: `a ${FORM_MEDIA_TYPE} body is read as UTF-8, not charset ${JSON.stringify(media.charset)}`,
    };
  try {
    if (media === 'form') {
      const f = readFormBody(text, JSON_LIMITS.maxKeys);
      if (!f.ok) return { ok: false, reason: 'body_invalid', field: f.field, message: f.message };
      checkValueLimits(f.value, JSON_LIMITS, 'body');
      canonicalize(f.value);
      return { ok: true, value: f.value };
    }
    const r = parseJsonText(text, JSON_LIMITS, 'body');
    if (!r.ok)
      return { ok: false, reason: 'body_invalid', field: r.field, message: `${r.field}: ${r.message}` };
    canonicalize(r.value);
    return { ok: true, value: r.value };
  } catch (e) {
    if (isKeelError(e) && e.code === ErrorCode.payloadTooLarge)
      return {
        ok: false,
        reason: 'body_too_large',
        field: String(e.details.field ?? '(body)'),
        message: excerpt(e.message, 300),
      };
    if (isKeelError(e) && e.code === ErrorCode.canonicalInvalid) {
      const field = excerpt(String(e.details.path ?? '$').replace(/^\$\.?/, ''), 100) || '(body)';
      return {
        ok: false,
        reason: 'body_invalid',
        field,
        message: `${field}: ${excerpt(String(e.details.problem), 200)}`,
      };
    }
    throw e;
  }
}

/** Maps a delivery of `hook` (its body parsed, its headers by lower-case name) to its event. */
export function mapDelivery(hook: HookSpec, body: unknown, headers: ReadonlyMap<string, string>): Mapping {
  if (hook.body) {
    const problems = validateValue(hook.body, body);
    if (problems.length > 0) {
      const p = problems[0]!;
      const field = p.field === '' ? '(body)' : p.field;
      return no({
        reason: 'body_schema',
        field,
        message: `${field}: ${p.problem.replace(/_/g, ' ')}: expected ${p.expected}, got ${p.got}${problems.length > 1 ? ` (+${problems.length - 1} more)` : ''}`,
        problems: problems.slice(0, 20),
      });
    }
  }
  const scope: DeliveryScope = { body, headers };
  const m = hook.event;
  const fail = (field: string, message: string) =>
    no({ reason: 'mapping_failed', field, message: `${field}: ${message}` });
  const one = (t: HookTemplate, field: string): { ok: true; value: unknown } | Mapping => {
    const r = renderHookTemplate(t, scope);
    return r.ok ? r : fail(field, `${r.missing} finds nothing in this delivery`);
  };
  const text = (t: HookTemplate, field: string, numbers: boolean): string | Mapping => {
    const r = one(t, field);
    if (!('value' in r)) return r;
    if (typeof r.value === 'string' && r.value !== '') return r.value;
    if (numbers && Number.isSafeInteger(r.value)) return String(r.value);
    return fail(
      field,
      `expected ${numbers ? 'a text or a whole number' : 'a text'}, got ${excerpt(JSON.stringify(r.value) ?? 'nothing', 60)}`,
    );
  };
  const type = text(m.type, 'event.type', false);
  if (typeof type !== 'string') return type;
  const id = text(m.id, 'event.id', true);
  if (typeof id !== 'string') return id;
  const subject = m.subject ? text(m.subject, 'event.subject', true) : undefined;
  if (subject !== undefined && typeof subject !== 'string') return subject;
  const t = one(m.time, 'event.time');
  if (!('value' in t)) return t;
  let time: string;
  if (typeof t.value === 'string') time = t.value;
  else if (Number.isSafeInteger(t.value) && (t.value as number) >= 0 && (t.value as number) < 253402300800)
    time = new Date((t.value as number) * 1000).toISOString().replace('.000Z', 'Z');
  else
    return fail(
      'event.time',
      `expected an RFC 3339 time or whole Unix seconds, got ${excerpt(JSON.stringify(t.value), 60)}`,
    );
  let payload: unknown;
  if (m.payload === undefined)
    payload = typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {};
  else {
    const r = renderTemplateValue(m.payload, scope, 'event.payload');
    if (!r.ok) return fail(r.field, `${r.missing} finds nothing in this delivery`);
    payload = r.value ?? {};
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
    return fail('event.payload', 'expected an object (map a body that is not an object under a key)');
  const event: MappedEvent = {
    id,
    type,
    source: hookSource(hook.name),
    ...(subject !== undefined ? { subject } : {}),
    payload: payload as Record<string, unknown>,
    time,
  };
  // The checks every event meets (lengths, time, canonical payload), answered as this hook's mapping.
  try {
    parseEvent(event, hook.tenant);
  } catch (e) {
    if (!isKeelError(e) || e.code !== ErrorCode.eventInvalid) throw e;
    const field = `event.${String(e.details.field ?? '')}`.replace(/\.$/, '');
    return fail(field, excerpt(e.message.replace(/^event: [^:]+: /, ''), 300));
  }
  return { ok: true, event };
}
