/**
 * One MCP server, reached through the official SDK client: a stdio child process or a streamable
 * HTTP URL. Connects on first use (never at start-up, so replay and `history` touch no server),
 * lists the server's tools once per connection (again after `notifications/tools/list_changed`, and
 * after a minute),
 * calls a tool with a timeout and the run's abort signal, and closes the client — and with it the
 * child process — on `close()`.
 *
 * Failures are errors naming the server (and the tool when there is one); an environment value
 * the server was given never appears in one.
 */
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  McpError,
  ErrorCode as McpErrorCode,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { McpListedTool, McpServerConfig } from '../../core/mcp/index.ts';
import { renderText, type SecretMask, secretMask } from '../../core/tools/index.ts';
import { outcomeUnknown } from '../../ports/index.ts';
import { mcpError } from './mcp-error.ts';

/** How many pages of `tools/list` are read at most (a server that pages forever is refused). */
const MAX_LIST_PAGES = 100;
/**
 * How long a listing is trusted: a long-lived process (`keel serve`, `keel worker`) lists again
 * after this, so a server that changes a tool without `notifications/tools/list_changed` is caught.
 */
const LIST_TTL_MS = 60_000;
/** How much of a stdio server's stderr is kept to explain a failure. */
const STDERR_TAIL = 2_000;

/** A server that cannot be reached or listed: failed I/O, naming the server (and the tool). */
function unavailable(server: string, tool: string | undefined, message: string): KeelError {
  return new KeelError(ErrorCode.mcpServerUnavailable, message, {
    server,
    ...(tool !== undefined ? { tool } : {}),
  });
}

export interface McpConnectionOptions {
  /** Where a stdio server's relative `cwd` (and its default working directory) is. */
  readonly baseDir: string;
  /** Reads Keel's environment (the values of a stdio server's `env` names). */
  readonly env?: (name: string) => string | undefined;
}

export class McpConnection {
  private client: Promise<Client> | undefined;
  private listed: Promise<Map<string, McpListedTool>> | undefined;
  private listedAt = 0;
  private stderrTail = '';
  private closed = false;

  constructor(
    readonly server: McpServerConfig,
    private readonly o: McpConnectionOptions,
  ) {}

  /** The server's tools by MCP name, as it lists them now (cached for this connection). */
  async tools(about?: string): Promise<Map<string, McpListedTool>> {
    if (!this.listed || performance.now() - this.listedAt > LIST_TTL_MS) {
      this.listedAt = performance.now();
      this.listed = this.list(about);
      this.listed.catch(() => {
        this.listed = undefined;
      });
    }
    return this.listed;
  }

  /**
   * Calls a tool; the answer as the server gave it (an `isError` answer included). With
   * `unknownOnLoss` (a call that must not be repeated), a call sent and then lost — timed out, its
   * connection closed, its transport failed — throws outcomeUnknown: whether it acted is not known,
   * and the run is suspended for reconciliation instead of failing as if nothing happened.
   */
  async call(
    tool: string,
    args: Record<string, unknown>,
    o: { idempotencyKey?: string; signal?: AbortSignal; unknownOnLoss?: boolean } = {},
  ): Promise<CallToolResult> {
    const client = await this.connect(tool);
    try {
      return (await client.callTool(
        {
          name: tool,
          arguments: args,
          ...(o.idempotencyKey ? { _meta: { 'keel/idempotencyKey': o.idempotencyKey } } : {}),
        },
        undefined,
        { timeout: this.server.timeoutMs, ...(o.signal ? { signal: o.signal } : {}) },
      )) as CallToolResult;
    } catch (e) {
      if (o.signal?.aborted) throw mcpError('cancelled', `the call of ${this.what(tool)} was cancelled`);
      // A JSON-RPC error the server answered is a refusal: the call did not act.
      const answered =
        e instanceof McpError &&
        e.code !== McpErrorCode.RequestTimeout &&
        e.code !== McpErrorCode.ConnectionClosed;
      if (o.unknownOnLoss && !answered)
        throw outcomeUnknown(
          `the call of ${this.what(tool)} was sent but no answer came (${this.reason(e)}): whether it acted is unknown`,
        );
      throw mcpError('mcp_call_failed', `the call of ${this.what(tool)} failed: ${this.reason(e)}`);
    }
  }

  /** Closes the client; a stdio server's process ends with it. Safe to call more than once. */
  async close(): Promise<void> {
    this.closed = true;
    const c = this.client;
    this.client = undefined;
    this.listed = undefined;
    if (!c) return;
    try {
      await (await c).close();
    } catch {}
  }

  private async list(about?: string): Promise<Map<string, McpListedTool>> {
    const client = await this.connect(about);
    const out = new Map<string, McpListedTool>();
    let cursor: string | undefined;
    try {
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const r = await client.listTools(cursor ? { cursor } : {}, { timeout: this.server.timeoutMs });
        for (const t of r.tools) out.set(t.name, t as McpListedTool);
        cursor = r.nextCursor;
        if (!cursor) return out;
      }
    } catch (e) {
      throw unavailable(
        this.server.name,
        about,
        `${this.what(about)}: listing its tools failed: ${this.reason(e)}`,
      );
    }
    throw unavailable(
      this.server.name,
      about,
      `${this.what(about)}: it lists more than ${MAX_LIST_PAGES} pages of tools`,
    );
  }

  private connect(about?: string): Promise<Client> {
    if (this.closed)
      return Promise.reject(unavailable(this.server.name, about, `${this.what(about)}: closed`));
    if (!this.client) {
      this.client = this.open(about);
      this.client.catch(() => {
        this.client = undefined;
      });
    }
    return this.client;
  }

  private async open(about?: string): Promise<Client> {
    const client = new Client({ name: 'keel', version: '0.1.0' }, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      this.listed = undefined;
    });
    client.onclose = () => {
      // A server that went away is connected to again by the next call, and listed again.
      this.client = undefined;
      this.listed = undefined;
    };
    // Built first: a secret that is not set is its own error, not a server that is down.
    const transport = this.transport(about);
    try {
      await client.connect(transport, { timeout: this.server.timeoutMs });
    } catch (e) {
      try {
        await client.close();
      } catch {}
      throw unavailable(
        this.server.name,
        about,
        `${this.what(about)} is down or unreachable: ${this.reason(e)}`,
      );
    }
    return client;
  }

  /**
   * The secrets an HTTP server's headers read, from the environment now. When `required`, a
   * missing one is an error naming it and its header; else it is left out.
   */
  private secrets(about: string | undefined, required = true): Map<string, string> {
    const out = new Map<string, string>();
    const t = this.server.transport;
    if (t.kind !== 'http') return out;
    for (const h of t.headers ?? [])
      for (const p of h.value) {
        if (p.kind !== 'secret') continue;
        const v = this.o.env?.(p.name);
        // A setting left out, like every other (exit 2), not a server that is down: nothing was sent.
        if ((v === undefined || v === '') && required)
          throw new KeelError(
            ErrorCode.usage,
            `${this.what(about)}: secret ${p.name} (header ${h.name}) is not set in the environment: set ${p.name}`,
            {
              server: this.server.name,
              ...(about !== undefined ? { tool: about } : {}),
              field: p.name,
              header: h.name,
            },
          );
        if (v) out.set(p.name, v);
      }
    return out;
  }

  private transport(about?: string): Transport {
    const t = this.server.transport;
    if (t.kind === 'http') {
      const secrets = this.secrets(about);
      const headers: Record<string, string> = {};
      for (const h of t.headers ?? []) headers[h.name] = renderText(h.value, { args: {}, secrets });
      return new StreamableHTTPClientTransport(new URL(t.url), { requestInit: { headers } });
    }
    const env: Record<string, string> = {};
    for (const name of t.env) {
      const v = this.o.env?.(name);
      if (v !== undefined) env[name] = v;
    }
    const cwd = t.cwd === undefined ? this.o.baseDir : resolve(this.o.baseDir, t.cwd);
    const stdio = new StdioClientTransport({
      command: t.command,
      args: [...t.args],
      env,
      cwd,
      stderr: 'pipe',
    });
    this.stderrTail = '';
    stdio.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    return stdio;
  }

  /** Names the server (and tool) for a message. */
  private what(tool?: string): string {
    return tool === undefined
      ? `MCP server "${this.server.name}"`
      : `MCP server "${this.server.name}" (tool "${tool}")`;
  }

  /**
   * Masks what the server said (a tool's answer, an error text) of every value it was handed: an
   * HTTP server's header secrets (`[secret NAME]`), a stdio server's environment values of 4
   * characters or more (`[env NAME]`), in any encoding it may echo them in (secret-mask.ts).
   */
  mask(): SecretMask {
    const t = this.server.transport;
    if (t.kind === 'http') return secretMask(this.secrets(undefined, false));
    const values = new Map<string, string>();
    for (const name of t.env) {
      const v = this.o.env?.(name);
      if (v && v.length >= 4) values.set(name, v);
    }
    return secretMask(values, (name) => `[env ${name}]`);
  }

  /** Why something failed, with the stdio server's last words, no environment value in it. */
  private reason(e: unknown): string {
    let why = e instanceof Error ? e.message : String(e);
    const tail = this.stderrTail.trim().split('\n').slice(-3).join(' | ');
    if (tail) why += ` (stderr: ${tail.slice(-500)})`;
    return this.mask().text(why);
  }
}
