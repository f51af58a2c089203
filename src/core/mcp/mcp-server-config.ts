/**
 * The `mcp:` section of a tools file: the MCP servers whose tools Keel registers, by name. Each is
 * a stdio command (with its arguments and the names of the environment variables it is given) or
 * a streamable HTTP URL (with headers that may read secrets: `Authorization: Bearer
 * {{secret.TOKEN}}`), with an optional list of the tools to include and per-tool overrides that
 * may only add caution (mcp-caution.ts).
 *
 * Owns parsing and checking the section's shape, each problem naming the file, server and field.
 * Pure: it never reads the environment, starts a process or connects to anything.
 */
import { ErrorCode, KeelError } from '../errors.ts';
import {
  type HeaderTemplate,
  OVERRIDE_FIELDS,
  parseHeaderTemplates,
  parseHttpTemplate,
  schemaProblem,
  TOOL_OVERRIDE_SCHEMA,
} from '../tools/index.ts';
import type { McpToolOverride } from './mcp-caution.ts';

export type McpTransportConfig =
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      /** Names of Keel's environment variables passed to the server (their values are never recorded). */
      readonly env: readonly string[];
      /** The server's working directory, relative to the tools file (its directory by default). */
      readonly cwd?: string;
    }
  | {
      readonly kind: 'http';
      readonly url: string;
      /**
       * Headers sent with every request, as templates of text and `{{secret.NAME}}` only; absent
       * when none (so a lock made before headers existed still matches its server).
       */
      readonly headers?: readonly McpHeader[];
    };

/** A header of an HTTP server (`Authorization: Bearer {{secret.SEARCH_TOKEN}}`). */
export type McpHeader = HeaderTemplate;

/** Headers the MCP client sets itself, or that frame the request. */
const RESERVED_HEADERS = new Set([
  'accept',
  'content-type',
  'content-length',
  'host',
  'connection',
  'transfer-encoding',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);

export interface McpServerConfig {
  readonly name: string;
  readonly transport: McpTransportConfig;
  /** The server's tools to register, by MCP name; all of them when absent. */
  readonly include?: readonly string[];
  /** Per MCP tool name: flags that may only add caution, and a cost. */
  readonly overrides: Readonly<Record<string, McpToolOverride>>;
  /** How long connecting, listing and each call may take. */
  readonly timeoutMs: number;
}

export const DEFAULT_MCP_TIMEOUT_MS = 30_000;
const MAX_TIMEOUT_MS = 600_000;

/** A server's name: it prefixes its tools' names (`<server>.<tool>`), so it has no dot. */
export const MCP_SERVER_NAME_RE = /^[A-Za-z][A-Za-z0-9_-]{0,62}$/;
const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SERVER_KEYS = ['command', 'args', 'env', 'cwd', 'url', 'headers', 'include', 'overrides', 'timeoutMs'];

const isMapping = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** The servers an `mcp:` section names, checked; `file` names the tools file in messages. */
export function parseMcpSection(section: unknown, file: string): McpServerConfig[] {
  const bad = (field: string, problem: string, server?: string): never => {
    throw new KeelError(ErrorCode.usage, `${file}: ${field}: ${problem}`, {
      file,
      field,
      problem,
      ...(server !== undefined ? { server } : {}),
    });
  };
  if (!isMapping(section)) return bad('mcp', 'expected a mapping of server names to servers');
  const servers: McpServerConfig[] = [];
  for (const [name, v] of Object.entries(section)) {
    const at = `mcp.${name}`;
    if (!MCP_SERVER_NAME_RE.test(name))
      bad(at, 'a server name is a letter then up to 62 letters, digits, _ or - (no dots)', name);
    if (!isMapping(v)) bad(at, 'expected a mapping with `command` or `url`', name);
    const s = v as Record<string, unknown>;
    for (const k of Object.keys(s))
      if (!SERVER_KEYS.includes(k))
        bad(`${at}.${k}`, `unknown field (expected ${SERVER_KEYS.join(', ')})`, name);
    const hasCommand = s.command !== undefined;
    const hasUrl = s.url !== undefined;
    if (hasCommand === hasUrl)
      bad(at, 'expected exactly one of `command` (stdio) or `url` (streamable HTTP)', name);
    let transport: McpTransportConfig;
    if (hasCommand) {
      if (typeof s.command !== 'string' || s.command.trim() === '')
        bad(`${at}.command`, 'expected a non-empty string', name);
      if (s.args !== undefined && !isStringList(s.args))
        bad(`${at}.args`, 'expected a list of strings', name);
      if (s.env !== undefined && !(isStringList(s.env) && s.env.every((e) => ENV_NAME_RE.test(e))))
        bad(
          `${at}.env`,
          'expected a list of environment variable names (values come from the environment)',
          name,
        );
      if (s.cwd !== undefined && (typeof s.cwd !== 'string' || s.cwd === ''))
        bad(`${at}.cwd`, 'expected a non-empty path', name);
      if (s.headers !== undefined)
        bad(`${at}.headers`, 'headers belong to a streamable HTTP server (`url`), not to a `command`', name);
      transport = {
        kind: 'stdio',
        command: s.command as string,
        args: (s.args as string[] | undefined) ?? [],
        env: (s.env as string[] | undefined) ?? [],
        ...(s.cwd !== undefined ? { cwd: s.cwd as string } : {}),
      };
    } else {
      if (s.args !== undefined || s.env !== undefined || s.cwd !== undefined)
        bad(at, '`args`, `env` and `cwd` belong to a stdio server (`command`), not to a `url`', name);
      let url: URL | undefined;
      try {
        url = typeof s.url === 'string' ? new URL(s.url) : undefined;
      } catch {}
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
        bad(`${at}.url`, 'expected an http:// or https:// URL', name);
      if (url && (url.username !== '' || url.password !== ''))
        bad(`${at}.url`, 'a URL carries no credentials', name);
      const headers = parseHeaders(s.headers, `${at}.headers`, (f, p) => bad(f, p, name));
      transport = { kind: 'http', url: s.url as string, ...(headers.length ? { headers } : {}) };
    }
    if (s.include !== undefined && !(isStringList(s.include) && s.include.length > 0))
      bad(`${at}.include`, 'expected a non-empty list of MCP tool names', name);
    const overrides: Record<string, McpToolOverride> = {};
    if (s.overrides !== undefined) {
      if (!isMapping(s.overrides))
        bad(`${at}.overrides`, 'expected a mapping of MCP tool names to flags', name);
      for (const [tool, o] of Object.entries(s.overrides as Record<string, unknown>)) {
        overrides[tool] = parseOverride(o, `${at}.overrides.${tool}`, (f, p) => bad(f, p, name));
      }
    }
    let timeoutMs = DEFAULT_MCP_TIMEOUT_MS;
    if (s.timeoutMs !== undefined) {
      const t = s.timeoutMs;
      if (!(typeof t === 'number' && Number.isSafeInteger(t) && t > 0 && t <= MAX_TIMEOUT_MS))
        bad(`${at}.timeoutMs`, `expected a whole number of milliseconds, 1-${MAX_TIMEOUT_MS}`, name);
      timeoutMs = t as number;
    }
    servers.push({
      name,
      transport,
      ...(s.include !== undefined ? { include: s.include as string[] } : {}),
      overrides,
      timeoutMs,
    });
  }
  return servers;
}

/** A server's `headers`: text and `{{secret.NAME}}` only (never an argument: they go with every request). */
function parseHeaders(v: unknown, at: string, bad: (field: string, problem: string) => never): McpHeader[] {
  if (v === undefined) return [];
  return parseHeaderTemplates(
    v,
    at,
    {
      reserved: RESERVED_HEADERS,
      reservedWhy: 'the MCP client sets this header itself',
      template: (f, text) => {
        const parsed = parseHttpTemplate(text);
        if (!parsed.ok) return bad(f, parsed.problem);
        if (parsed.parts.some((p) => p.kind !== 'text' && p.kind !== 'secret'))
          bad(f, 'a server header reads only {{secret.NAME}}: it goes with every request, not one call');
        return parsed.parts;
      },
    },
    bad,
  );
}

/**
 * One tool's override, checked against the fields of the one tool descriptor schema an override
 * may set (the same forms as a tool pack's or an HTTP tool's: `cost: 0.05` is `{fixedUsd: 0.05}`).
 */
function parseOverride(
  o: unknown,
  at: string,
  bad: (field: string, problem: string) => never,
): McpToolOverride {
  if (!isMapping(o)) return bad(at, `expected a mapping of ${OVERRIDE_FIELDS.join(', ')}`);
  const problem = schemaProblem(TOOL_OVERRIDE_SCHEMA, o);
  if (problem) return bad(`${at}.${problem.field}`, problem.problem);
  const { cost, ...flags } = o as McpToolOverride & { cost?: unknown };
  if (cost === undefined) return flags;
  const normalised = typeof cost === 'number' ? { fixedUsd: cost } : (cost as object);
  return Object.keys(normalised).length > 0 ? { ...flags, cost: normalised } : flags;
}
