/**
 * `keel tools ls` lists the registry: Keel's core tools, a tool pack's and a tools file's (an MCP
 * server's approved tools among them), each with its flags, scopes and argument schema, and for an
 * MCP tool its server, MCP name and approved schema hash. `keel tools approve <file>` connects to
 * every MCP server a tools file names, lists its tools and writes the lock file beside it (what
 * Keel registers and calls from then on); it reports which tools are new, changed or removed.
 */
import type { Command } from 'commander';
import pc from 'picocolors';
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { GlobalOptions, ReportError, WithContext } from './context.ts';
import { line, printJson } from './output.ts';

export function registerToolsCommands(program: Command, withContext: WithContext, report: ReportError): void {
  const tools = program
    .command('tools')
    .description('the tool registry: list it, approve the MCP servers a tools file names');

  tools
    .command('ls')
    .description(
      'list registered tools (core, the tool pack, a tools file: MCP servers) with flags and scopes',
    )
    .action(async (_o: unknown, cmd: Command) =>
      withContext(cmd, async (ctx) => {
        const entries = ctx.keel.tools
          .catalog()
          .map((descriptor) => {
            const { simulate: _s, ...d } = descriptor as typeof descriptor & { simulate?: unknown };
            const origin = ctx.toolOrigins.get(d.name);
            const source = origin ? origin.kind : d.name.startsWith('core.') ? 'core' : 'pack';
            return { ...d, source, ...(origin ? { ...origin, kind: undefined } : {}) };
          })
          .map((e) => JSON.parse(JSON.stringify(e)) as Record<string, unknown>)
          .sort((a, b) => String(a.name).localeCompare(String(b.name)));
        if (ctx.json) {
          printJson({ tools: entries });
          return;
        }
        for (const e of entries) {
          const flags = [
            e.effect,
            e.destructive ? 'destructive' : undefined,
            e.idempotent ? 'idempotent' : undefined,
            e.approval ? `approval ${String(e.approval)}` : undefined,
          ].filter(Boolean);
          const from =
            e.source === 'mcp'
              ? `mcp ${String(e.server)} (${String(e.transport)}) ${String(e.mcpTool)} ${pc.dim(String(e.schemaHash).slice(0, 19))}`
              : String(e.source);
          line(`${String(e.name)}  ${pc.dim(flags.join(', '))}  ${from}`);
        }
      }),
    );

  tools
    .command('approve')
    .description(
      "connect to each MCP server a tools file names, list its tools and record their schemas' hashes in the lock file beside it",
    )
    .argument('<file>', 'the tools file (.yaml, .yml or .json) with an `mcp:` section')
    .action(async (file: string, _o: unknown, cmd: Command) => {
      const g = cmd.optsWithGlobals() as GlobalOptions;
      try {
        const { isToolsFile, readToolsFile } = await import('./tools-file.ts');
        if (!isToolsFile(file))
          throw new KeelError(ErrorCode.usage, `${file}: expected a tools file (.yaml, .yml or .json)`, {
            field: 'file',
            file,
          });
        const doc = readToolsFile(file);
        if (doc.mcp === undefined)
          throw new KeelError(ErrorCode.usage, `${file}: it has no \`mcp:\` section; nothing to approve`, {
            field: 'mcp',
            file,
          });
        const { approveMcpTools } = await import('../app/mcp-tools.ts');
        const r = await approveMcpTools(doc.mcp, { file });
        if (g.json === true) {
          printJson(r);
          return;
        }
        for (const c of r.changes) {
          const mark =
            c.change === 'unchanged'
              ? pc.dim(c.change)
              : c.change === 'removed'
                ? pc.red(c.change)
                : pc.yellow(c.change);
          line(`${mark}  ${c.name}${c.hash ? `  ${pc.dim(c.hash)}` : ''}`);
        }
        line(`${pc.green('wrote')} ${r.lockFile}`);
      } catch (e) {
        report(e, g.json === true);
      }
    });
}
