/**
 * Tool packs: a module (TypeScript or JavaScript) whose default export — or `tools` export — is an
 * array of tool definitions, or a function (possibly async) returning one. `--tools <module>` or
 * KEEL_TOOLS loads it into every command, so `keel worker` processes can run tools that are not
 * built in. The module is trusted code: it runs in the process, like any other tool handler.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { ToolDefinition } from '../ports/index.ts';

export async function loadToolPack(module: string): Promise<ToolDefinition[]> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(resolve(module)).href)) as Record<string, unknown>;
  } catch (e) {
    throw new KeelError(ErrorCode.usage, `--tools: cannot load ${module}: ${(e as Error).message}`, {
      field: 'tools',
      module,
    });
  }
  const exported = mod.default ?? mod.tools;
  const value = typeof exported === 'function' ? await (exported as () => unknown)() : exported;
  if (!Array.isArray(value)) {
    throw new KeelError(
      ErrorCode.usage,
      `--tools: ${module} must export (as default or \`tools\`) an array of tool definitions, or a function returning one`,
      { field: 'tools', module },
    );
  }
  return value as ToolDefinition[];
}
