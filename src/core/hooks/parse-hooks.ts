/**
 * Hooks files (YAML or JSON) -> validated `HookSpec`s, every problem located at its field
 * (`hooks.yaml:7:13: hooks[0].auth.scheme: ...`). A hooks file is reviewed configuration:
 *
 *   hooks:
 *     - name: helpdesk                 # POST /hooks/helpdesk
 *       tenant: acme                   # the one tenant its deliveries belong to
 *       auth: { scheme: hmac-sha256, header: X-Signature, prefix: "sha256=", secret: "{{secret.HELPDESK_SECRET}}" }
 *       body: { type: object, required: [ticket] }       # JSON Schema of the body
 *       event: { type: refund.requested, id: "{{headers.x-delivery-id}}", time: "{{body.created_at}}",
 *                subject: "{{body.ticket.id}}", payload: { amount_usd: "{{body.amount}}" } }
 *       maxBodyBytes: 262144           # default 256 KiB
 *       rateLimit: { perSecond: 50, burst: 100 }
 *
 * An unknown key, a field of another scheme, a bad template or an invalid body schema is refused.
 * Reuses the spec's YAML bridge and checker; never reads files or the environment.
 */
import { ErrorCode, isKeelError, KeelError } from '../errors.ts';
import { parseYamlWith, type SpecProblem } from '../spec/index.ts';
import { checkKeys, expectMapping, field, type Obj, readString, SpecChecker } from '../spec/spec-checker.ts';
import { describeValue, type FieldPath, formatProblem } from '../spec/spec-problem.ts';
import { createKeelAjv, HTTP_HEADER_NAME, type JsonSchema, parseHttpTemplate } from '../tools/index.ts';
import {
  DIGEST_ENCODINGS,
  type DigestEncoding,
  HOOK_LIMITS,
  HOOK_NAME,
  HOOK_SCHEMES,
  type HookAuth,
  type HookEventMapping,
  type HookRateLimit,
  type HookScheme,
  type HookSpec,
} from './hook-spec.ts';
import { HookTemplate, parseTemplateValue } from './hook-template.ts';

const TOP_KEYS = ['hooks'] as const;
const HOOK_KEYS = ['name', 'tenant', 'description', 'auth', 'body', 'event', 'maxBodyBytes', 'rateLimit'];
const AUTH_KEYS: Record<HookScheme, readonly string[]> = {
  'hmac-sha256': ['scheme', 'header', 'secret', 'encoding', 'prefix'],
  'hmac-sha256-timestamped': ['scheme', 'header', 'secret', 'toleranceSeconds'],
  'shared-secret': ['scheme', 'header', 'secret'],
};
const EVENT_KEYS = ['type', 'id', 'time', 'subject', 'payload'];
const RATE_KEYS = ['perSecond', 'burst'];
const TENANT = /^[A-Za-z0-9._~-]{1,64}$/;

/** Parses hooks file text; throws `usage` carrying every problem (file:line:column, field, message). */
export function parseHooks(text: string, file: string): HookSpec[] {
  try {
    return parseYamlWith(text, file, buildHooks);
  } catch (e) {
    if (isKeelError(e) && e.code === ErrorCode.specInvalid)
      throw hooksInvalid(e.details.problems as SpecProblem[]);
    throw e;
  }
}

/** Validates an already-parsed value (hooks given as an object); problems carry no line numbers. */
export function hooksFromValue(value: unknown, file = 'hooks'): HookSpec[] {
  const c = new SpecChecker(file);
  const h = buildHooks(c, value);
  if (h === undefined || c.problems.length > 0) throw hooksInvalid(c.sorted());
  return h;
}

function hooksInvalid(problems: readonly SpecProblem[]): KeelError {
  const first = problems[0];
  const more = problems.length > 1 ? ` (+${problems.length - 1} more)` : '';
  return new KeelError(ErrorCode.usage, `${first ? formatProblem(first) : 'invalid hooks file'}${more}`, {
    field: first?.field ?? 'hooks',
    problems: [...problems],
  });
}

function buildHooks(c: SpecChecker, value: unknown): HookSpec[] | undefined {
  const doc = expectMapping(c, value, []);
  if (!doc) return undefined;
  checkKeys(c, doc, [], TOP_KEYS);
  const list = field(doc, 'hooks');
  if (!Array.isArray(list)) {
    c.report(['hooks'], `expected a list of hooks, got ${describeValue(list)}`, { at: 'key' });
    return undefined;
  }
  const seen = new Set<string>();
  const hooks: HookSpec[] = [];
  list.forEach((entry, i) => {
    const h = buildHook(c, entry, ['hooks', i]);
    if (!h) return;
    if (seen.has(h.name)) c.report(['hooks', i, 'name'], `hook ${h.name} is declared twice`);
    seen.add(h.name);
    hooks.push(h);
  });
  return hooks;
}

function int(
  c: SpecChecker,
  obj: Obj,
  path: FieldPath,
  lim: { default: number; min: number; max: number },
): number {
  const v = field(obj, path[path.length - 1] as string);
  if (v === undefined) return lim.default;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < lim.min || v > lim.max) {
    c.report(path, `expected a whole number from ${lim.min} to ${lim.max}, got ${describeValue(v)}`);
    return lim.default;
  }
  return v;
}

function buildHook(c: SpecChecker, entry: unknown, at: FieldPath): HookSpec | undefined {
  const h = expectMapping(c, entry, at);
  if (!h) return undefined;
  const found = c.found;
  checkKeys(c, h, at, HOOK_KEYS);
  const name = readString(c, h, [...at, 'name'], {
    what: 'a hook name of lower-case letters, digits, "_" or "-" (its path is /hooks/<name>)',
    pattern: HOOK_NAME,
  });
  const tenant = readString(c, h, [...at, 'tenant'], {
    what: 'a tenant name ([A-Za-z0-9._~-], 1-64)',
    pattern: TENANT,
  });
  const description = readString(c, h, [...at, 'description'], { what: 'a text', optional: true });
  const auth = buildAuth(c, field(h, 'auth'), [...at, 'auth']);
  const body = buildSchema(c, field(h, 'body'), [...at, 'body']);
  const event = buildEvent(c, field(h, 'event'), [...at, 'event']);
  const maxBodyBytes = int(c, h, [...at, 'maxBodyBytes'], HOOK_LIMITS.maxBodyBytes);
  let rateLimit: HookRateLimit = {
    perSecond: HOOK_LIMITS.perSecond.default,
    burst: HOOK_LIMITS.burst.default,
  };
  const rate = field(h, 'rateLimit');
  if (rate !== undefined) {
    const r = expectMapping(c, rate, [...at, 'rateLimit']);
    if (r) {
      checkKeys(c, r, [...at, 'rateLimit'], RATE_KEYS);
      rateLimit = {
        perSecond: int(c, r, [...at, 'rateLimit', 'perSecond'], HOOK_LIMITS.perSecond),
        burst: int(c, r, [...at, 'rateLimit', 'burst'], HOOK_LIMITS.burst),
      };
    }
  }
  if (c.found > found || !name || !tenant || !auth || !event) return undefined;
  return {
    name,
    tenant,
    ...(description !== undefined ? { description } : {}),
    auth,
    ...(body !== undefined ? { body } : {}),
    event,
    maxBodyBytes,
    rateLimit,
  };
}

function buildAuth(c: SpecChecker, value: unknown, at: FieldPath): HookAuth | undefined {
  if (value === undefined) {
    c.missing(at, `a mapping with scheme (${HOOK_SCHEMES.join(', ')}), header and secret`);
    return undefined;
  }
  const a = expectMapping(c, value, at);
  if (!a) return undefined;
  const scheme = readString(c, a, [...at, 'scheme'], { what: `one of ${HOOK_SCHEMES.join(', ')}` });
  if (scheme === undefined) return undefined;
  if (!(HOOK_SCHEMES as readonly string[]).includes(scheme)) {
    c.report([...at, 'scheme'], `expected one of ${HOOK_SCHEMES.join(', ')}, got ${describeValue(scheme)}`);
    return undefined;
  }
  const s = scheme as HookScheme;
  for (const k of Object.keys(a))
    if (!AUTH_KEYS[s].includes(k))
      c.report([...at, k], `not a field of the ${s} scheme; it has ${AUTH_KEYS[s].join(', ')}`, {
        at: 'key',
      });
  const header = readString(c, a, [...at, 'header'], {
    what: 'an HTTP header name',
    pattern: HTTP_HEADER_NAME,
  });
  const secret = readSecret(c, a, [...at, 'secret']);
  if (header === undefined || secret === undefined) return undefined;
  if (s === 'shared-secret') return { scheme: s, header, secret };
  if (s === 'hmac-sha256-timestamped')
    return {
      scheme: s,
      header,
      secret,
      toleranceSeconds: int(c, a, [...at, 'toleranceSeconds'], HOOK_LIMITS.toleranceSeconds),
    };
  const encoding =
    readString(c, a, [...at, 'encoding'], { what: DIGEST_ENCODINGS.join(' or '), optional: true }) ?? 'hex';
  if (!(DIGEST_ENCODINGS as readonly string[]).includes(encoding))
    c.report(
      [...at, 'encoding'],
      `expected ${DIGEST_ENCODINGS.join(' or ')}, got ${describeValue(encoding)}`,
    );
  const prefix = readString(c, a, [...at, 'prefix'], {
    what: 'the text before the digest, e.g. "sha256="',
    optional: true,
    pattern: /^[!-~]{1,32}$/,
  });
  return { scheme: s, header, secret, encoding: encoding as DigestEncoding, prefix: prefix ?? '' };
}

/** `{{secret.NAME}}`, as tools files name secrets: the environment variable holding it. */
function readSecret(c: SpecChecker, a: Obj, at: FieldPath): string | undefined {
  const text = readString(c, a, at, { what: 'a secret as "{{secret.NAME}}" (read from the environment)' });
  if (text === undefined) return undefined;
  const t = parseHttpTemplate(text);
  const only = t.ok && t.parts.length === 1 ? t.parts[0] : undefined;
  if (only?.kind !== 'secret') {
    c.report(
      at,
      `expected exactly "{{secret.NAME}}" (the environment variable holding the secret), got ${describeValue(text)}`,
    );
    return undefined;
  }
  return only.name;
}

function buildSchema(c: SpecChecker, value: unknown, at: FieldPath): JsonSchema | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    c.report(at, `expected a JSON Schema (a mapping), got ${describeValue(value)}`);
    return undefined;
  }
  try {
    // A validator of its own: a schema's `$id` must not collide with the shared validator's cache.
    createKeelAjv().compile(value);
  } catch (e) {
    c.report(at, `not a valid JSON Schema: ${(e as Error).message}`);
    return undefined;
  }
  return value as JsonSchema;
}

function buildEvent(c: SpecChecker, value: unknown, at: FieldPath): HookEventMapping | undefined {
  if (value === undefined) {
    c.missing(at, 'a mapping with type, id and time (templates over body and headers), subject and payload');
    return undefined;
  }
  const e = expectMapping(c, value, at);
  if (!e) return undefined;
  checkKeys(c, e, at, EVENT_KEYS);
  const found = c.found;
  const bad = (path: readonly (string | number)[], problem: string) => c.report(path, problem);
  const text = (k: string, required: boolean): HookTemplate | undefined => {
    const s = readString(c, e, [...at, k], {
      what: 'a text or a template like "{{body.id}}"',
      optional: !required,
    });
    if (s === undefined) return undefined;
    const t = parseTemplateValue(s, [...at, k], bad);
    return t instanceof HookTemplate ? t : undefined;
  };
  const type = text('type', true);
  const id = text('id', true);
  const time = text('time', true);
  const subject = text('subject', false);
  const payloadValue = field(e, 'payload');
  if (
    payloadValue !== undefined &&
    !(typeof payloadValue === 'string' || (typeof payloadValue === 'object' && !Array.isArray(payloadValue)))
  )
    c.report([...at, 'payload'], `expected a mapping or "{{body}}", got ${describeValue(payloadValue)}`);
  const payload =
    payloadValue === undefined ? undefined : parseTemplateValue(payloadValue, [...at, 'payload'], bad);
  if (c.found > found || !type || !id || !time) return undefined;
  return { type, id, time, ...(subject ? { subject } : {}), ...(payload !== undefined ? { payload } : {}) };
}
