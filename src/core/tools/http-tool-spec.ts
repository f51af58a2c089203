/**
 * HTTP tools declared as data: the shape of one entry of a tools file's `tools:` section, checked
 * into an `HttpToolSpec` the HTTP adapter (adapters/http-tools/) turns into a tool definition.
 *
 * Pure: values in, a spec or a KeelError out. Every error names the file, the tool and the field.
 * The URL's scheme and host are literal (only http and https; no template may pick the host), a
 * template reads only `args.<path>` and `secret.<NAME>`, and a secret's value is never part of a
 * spec: only its name, read from the environment at call time by the adapter.
 */
import { ErrorCode, KeelError } from '../errors.ts';
import { isNear } from '../spec/spec-checker.ts';
import {
  HTTP_HEADER_NAME,
  parseHeaderTemplates,
  parseHttpTemplate,
  TemplateLeaf,
  type TemplatePart,
} from './http-template.ts';
import { checkToolDescriptor, TOOL_EFFECTS, type ToolCost, type ToolDescriptor } from './tool-descriptor.ts';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Defaults and bounds of the numeric fields. */
export const HTTP_TOOL_LIMITS = {
  timeoutMs: { default: 10_000, min: 1, max: 120_000 },
  retries: { default: 2, min: 0, max: 5 },
  backoffMs: { default: 200, min: 1, max: 10_000 },
  maxResponseBytes: { default: 1_048_576, min: 1, max: 16_777_216 },
} as const;

/** A body template: a text template, or JSON whose string leaves are templates. */
export type BodyTemplate =
  | { readonly kind: 'text'; readonly parts: readonly TemplatePart[] }
  | { readonly kind: 'json'; readonly value: unknown };

export interface HttpToolSpec {
  readonly descriptor: ToolDescriptor;
  readonly method: HttpMethod;
  /** The URL template; `origin` is its literal scheme, host and port. */
  readonly url: readonly TemplatePart[];
  readonly origin: string;
  readonly headers: readonly { readonly name: string; readonly value: readonly TemplatePart[] }[];
  readonly body?: BodyTemplate;
  /** The header Keel sends the step's idempotency key in (write/external tools retry only with one). */
  readonly idempotencyHeader?: string;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly backoffMs: number;
  readonly maxResponseBytes: number;
  /**
   * How Keel finds out, by the step's idempotency key, whether a call whose outcome is unknown (a
   * timeout, a dropped connection) happened: a GET whose 2xx says it did (its answer the step's
   * output) and whose `notFound` statuses say it did not. Anything else leaves it to a person.
   */
  readonly reconcile?: ReconcileCheck;
  /**
   * What the tool answers in a simulated run (TESTING, SHADOW) instead of calling: a JSON template
   * over the arguments (no secrets). Absent: a write/external tool's step is suppressed there.
   */
  readonly simulate?: unknown;
  /** The secret names the templates read, each once. */
  readonly secrets: readonly string[];
}

export interface ReconcileCheck {
  readonly method: 'GET';
  readonly url: readonly TemplatePart[];
  readonly origin: string;
  readonly headers: readonly { readonly name: string; readonly value: readonly TemplatePart[] }[];
  readonly notFound: readonly number[];
}

/** An HTTP tool's cost: the same forms as any tool's (tool-descriptor-schema.ts). */
export type HttpToolCost = ToolCost;

const FIELDS = new Set([
  'name',
  'description',
  'method',
  'url',
  'headers',
  'body',
  'args',
  'result',
  'effect',
  'destructive',
  'idempotent',
  'scopes',
  'cost',
  'timeoutMs',
  'retries',
  'backoffMs',
  'maxResponseBytes',
  'idempotencyHeader',
  'approval',
  'simulate',
  'reconcile',
]);

/** Headers Keel sets itself or that would change how the request is framed. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks the `tools:` section of a tools file (`file` names it in errors): an array of HTTP tool
 * declarations, names unique. Returns the specs in file order.
 */
export function parseHttpTools(section: unknown, file: string): HttpToolSpec[] {
  if (!Array.isArray(section)) {
    throw new KeelError(ErrorCode.usage, `${file}: tools: expected a list of HTTP tools`, {
      file,
      field: 'tools',
    });
  }
  const seen = new Set<string>();
  return section.map((entry, i) => {
    const spec = parseHttpTool(entry, file, i);
    const name = spec.descriptor.name;
    if (seen.has(name)) {
      throw new KeelError(ErrorCode.usage, `${file}: tool ${name}: name: declared twice`, {
        file,
        tool: name,
        field: 'name',
      });
    }
    seen.add(name);
    return spec;
  });
}

/** One HTTP tool declaration; `index` names it in errors until its name is known. */
export function parseHttpTool(entry: unknown, file: string, index = 0): HttpToolSpec {
  const label = isObject(entry) && typeof entry.name === 'string' ? entry.name : `tools[${index}]`;
  const bad = (field: string, problem: string): never => {
    throw new KeelError(ErrorCode.usage, `${file}: tool ${label}: ${field}: ${problem}`, {
      file,
      tool: label,
      field,
      problem,
    });
  };
  if (!isObject(entry)) return bad('(entry)', 'expected a mapping with name, method, url, args...');
  for (const k of Object.keys(entry))
    if (!FIELDS.has(k)) {
      const near = [...FIELDS].find((f) => isNear(f, k));
      bad(k, `not a field of an HTTP tool${near ? `; did you mean "${near}"?` : ''}`);
    }

  const str = (field: string, required: boolean): string | undefined => {
    const v = entry[field];
    if (v === undefined && !required) return undefined;
    if (typeof v !== 'string' || v.length === 0) return bad(field, 'expected a non-empty string');
    return v;
  };
  const int = (field: keyof typeof HTTP_TOOL_LIMITS): number => {
    const lim = HTTP_TOOL_LIMITS[field];
    const v = entry[field];
    if (v === undefined) return lim.default;
    if (!Number.isSafeInteger(v) || (v as number) < lim.min || (v as number) > lim.max)
      return bad(field, `expected an integer from ${lim.min} to ${lim.max}`);
    return v as number;
  };
  const name = str('name', true)!;
  const methodText = (str('method', false) ?? 'GET').toUpperCase();
  if (!(HTTP_METHODS as readonly string[]).includes(methodText))
    bad('method', `expected one of ${HTTP_METHODS.join(', ')}`);
  const method = methodText as HttpMethod;
  const effectText = entry.effect ?? (method === 'GET' ? 'read' : undefined);
  if (effectText === undefined)
    bad('effect', `required for a ${method} tool: one of ${TOOL_EFFECTS.join(', ')}`);

  // The fields every tool has, checked by the one descriptor schema (as a tool pack's are), with
  // an HTTP tool's defaults: a server that deduplicates by the idempotency header makes a
  // repeated call a no-op.
  const checked = checkToolDescriptor({
    name,
    description: entry.description ?? '',
    args: entry.args ?? { type: 'object', properties: {}, additionalProperties: false },
    destructive: entry.destructive ?? false,
    effect: effectText,
    idempotent: entry.idempotent ?? (effectText === 'read' || entry.idempotencyHeader !== undefined),
    scopes: entry.scopes ?? [],
    ...(entry.result !== undefined ? { result: entry.result } : {}),
    ...(entry.cost !== undefined ? { cost: entry.cost } : {}),
    ...(entry.approval !== undefined ? { approval: entry.approval } : {}),
  });
  if (!checked.ok) return bad(checked.field, checked.problem);
  const descriptor = checked.descriptor;
  const { args, effect } = descriptor;
  if (effect === 'read' && (method === 'PUT' || method === 'PATCH' || method === 'DELETE'))
    bad(
      'effect',
      `a ${method} request changes what it names, so it cannot be a read: declare write or external`,
    );

  const argNames = new Set(Object.keys(isObject(args.properties) ? args.properties : {}));
  const secrets = new Set<string>();
  /** Whether the request itself (not its reconcile check) carries the step's idempotency key. */
  let sendsKey = false;
  const template = (field: string, text: string): TemplatePart[] => {
    const parsed = parseHttpTemplate(text);
    if (!parsed.ok) return bad(field, parsed.problem);
    for (const p of parsed.parts) {
      if (p.kind === 'secret') secrets.add(p.name);
      if (p.kind === 'key' && !field.startsWith('reconcile') && !field.startsWith('simulate'))
        sendsKey = true;
      if (p.kind === 'arg' && p.path.length > 0 && !argNames.has(p.path[0]!))
        bad(field, `{{args.${p.path.join('.')}}}: ${p.path[0]} is not a property of args`);
    }
    return parsed.parts;
  };

  // A URL: literal scheme and host, templates only after them.
  const urlOf = (field: string, value: unknown): { url: TemplatePart[]; origin: string } => {
    if (typeof value !== 'string' || value.length === 0) return bad(field, 'expected a non-empty string');
    const m = /^(https?):\/\/([^/?#{}]+)(?=$|[/?#])/i.exec(value);
    if (!m) return bad(field, 'expected an http:// or https:// URL whose host is written out (no template)');
    let parsedOrigin: URL | undefined;
    try {
      parsedOrigin = new URL(`${m[1]}://${m[2]}`);
    } catch {
      bad(field, `${m[2]} is not a valid host`);
    }
    if (parsedOrigin!.username || parsedOrigin!.password)
      bad(field, 'credentials in the URL: use a header with {{secret.NAME}}');
    const url = template(field, value);
    if (url.some((p) => p.kind === 'args-whole')) bad(field, '{{args}} cannot stand in a URL');
    return { url, origin: parsedOrigin!.origin };
  };
  const headersOf = (field: string, value: unknown) =>
    parseHeaderTemplates(
      value,
      field,
      {
        reserved: RESERVED_HEADERS,
        reservedWhy: 'Keel sets this header itself',
        template: (f, text) => {
          const parts = template(f, text);
          if (parts.some((p) => p.kind === 'args-whole')) bad(f, '{{args}} cannot stand in a header');
          return parts;
        },
      },
      bad,
    );
  str('url', true);
  const { url, origin } = urlOf('url', entry.url);
  const headers = headersOf('headers', entry.headers ?? {});

  let body: BodyTemplate | undefined;
  if (entry.body !== undefined) {
    if (method === 'GET') bad('body', 'a GET request has no body');
    body =
      typeof entry.body === 'string'
        ? { kind: 'text', parts: template('body', entry.body) }
        : { kind: 'json', value: bodyTemplate(entry.body, 'body', template, bad) };
  }

  const idempotencyHeader = str('idempotencyHeader', false);
  if (idempotencyHeader !== undefined) {
    if (!HTTP_HEADER_NAME.test(idempotencyHeader)) bad('idempotencyHeader', 'not a valid header name');
    if (headers.some((h) => h.name.toLowerCase() === idempotencyHeader.toLowerCase()))
      bad('idempotencyHeader', `also given in headers; Keel sets ${idempotencyHeader} itself`);
  }

  // Claiming a POST or PATCH may be sent again is a claim about the server: it holds only where the
  // request carries the step's idempotency key for the server to recognise a repeat by.
  if (
    descriptor.idempotent &&
    effect !== 'read' &&
    (method === 'POST' || method === 'PATCH') &&
    idempotencyHeader === undefined &&
    !sendsKey
  )
    bad(
      'idempotent',
      `a ${method} sent again acts again unless the server can tell it is a repeat: set idempotencyHeader (or send {{idempotencyKey}}), or leave idempotent false`,
    );

  let reconcile: ReconcileCheck | undefined;
  if (entry.reconcile !== undefined) {
    const r = entry.reconcile;
    if (!isObject(r)) bad('reconcile', 'expected a mapping with url (and headers, notFound)');
    const rc = r as Record<string, unknown>;
    for (const k of Object.keys(rc))
      if (!['method', 'url', 'headers', 'notFound'].includes(k))
        bad(`reconcile.${k}`, 'expected method, url, headers or notFound');
    if (rc.method !== undefined && String(rc.method).toUpperCase() !== 'GET')
      bad('reconcile.method', 'a reconcile check only reads: GET');
    const notFound = rc.notFound ?? [404];
    if (
      !Array.isArray(notFound) ||
      notFound.length === 0 ||
      notFound.some((x) => !Number.isSafeInteger(x) || (x as number) < 300 || (x as number) > 599)
    )
      bad('reconcile.notFound', 'expected a list of HTTP statuses from 300 to 599');
    reconcile = {
      method: 'GET',
      ...urlOf('reconcile.url', rc.url),
      headers: headersOf('reconcile.headers', rc.headers ?? {}),
      notFound: notFound as number[],
    };
  }

  let simulate: unknown;
  if (entry.simulate !== undefined) {
    const before = new Set(secrets);
    simulate = bodyTemplate(entry.simulate, 'simulate', template, bad);
    if (readsSecret(simulate)) bad('simulate', 'a simulation never sees a secret: use only {{args...}}');
    secrets.clear();
    for (const n of before) secrets.add(n);
  }

  return {
    descriptor,
    method,
    url,
    origin,
    headers,
    ...(body ? { body } : {}),
    ...(idempotencyHeader ? { idempotencyHeader } : {}),
    timeoutMs: int('timeoutMs'),
    retries: int('retries'),
    backoffMs: int('backoffMs'),
    maxResponseBytes: int('maxResponseBytes'),
    ...(simulate !== undefined ? { simulate } : {}),
    ...(reconcile ? { reconcile } : {}),
    secrets: [...secrets].sort(),
  };
}

/** A JSON body template: its string leaves parsed as templates (TemplateLeaf). */
function bodyTemplate(
  v: unknown,
  field: string,
  template: (field: string, text: string) => TemplatePart[],
  bad: (field: string, problem: string) => never,
): unknown {
  if (typeof v === 'string') return new TemplateLeaf(template(field, v));
  if (Array.isArray(v)) return v.map((x, i) => bodyTemplate(x, `${field}[${i}]`, template, bad));
  if (isObject(v)) {
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [k, bodyTemplate(x, `${field}.${k}`, template, bad)]),
    );
  }
  if (v === null || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) return v;
  return bad(field, 'expected JSON values');
}

/** Whether a parsed JSON template reads a secret anywhere. */
function readsSecret(v: unknown): boolean {
  if (v instanceof TemplateLeaf) return v.parts.some((p) => p.kind === 'secret');
  if (Array.isArray(v)) return v.some(readsSecret);
  if (typeof v === 'object' && v !== null) return Object.values(v).some(readsSecret);
  return false;
}
