/**
 * Tool packs: a module (TypeScript or JavaScript) whose default export — or `tools` export — is an
 * array of tool definitions, or a function (possibly async) returning one. `--tools <module>` or
 * KEEL_TOOLS names it; without either, a project's `keel.tools.ts` (or `.mts`, `.js`, `.mjs`) in
 * the working directory is loaded (`keel init` writes one). The module is trusted code: it runs in
 * the process, like any other tool handler. A TypeScript pack loads without tsx: Node 20 cannot
 * strip types, so typescript-hooks.ts transpiles it (registered only when a `.ts` pack is loaded).
 */
import { existsSync } from 'node:fs';
import { register } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { ToolDefinition } from '../ports/index.ts';

/** The project tool pack loaded when neither --tools nor KEEL_TOOLS names one, first found wins. */
export const DEFAULT_TOOL_PACKS = ['keel.tools.ts', 'keel.tools.mts', 'keel.tools.js', 'keel.tools.mjs'];

/** The working directory's project tool pack, if it has one. */
export function defaultToolPack(dir = process.cwd()): string | undefined {
  return DEFAULT_TOOL_PACKS.find((f) => existsSync(resolve(dir, f)));
}

let typescriptHooks = false;

/** Lets this process import `.ts` modules (once): see typescript-hooks.ts. */
function loadTypeScript(): void {
  if (typescriptHooks) return;
  typescriptHooks = true;
  // This module runs as the source (.ts, under tsx) or as its build (.js); its sibling is alike.
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  register(new URL(`./typescript-hooks${ext}`, import.meta.url));
}

/**
 * Loads a tool pack. `origin` is how it was chosen, for messages: `--tools` (the flag or
 * KEEL_TOOLS) or `default` (the working directory's keel.tools.*).
 */
export async function loadToolPack(
  module: string,
  origin: '--tools' | 'default' = '--tools',
): Promise<ToolDefinition[]> {
  const prefix = origin === '--tools' ? '--tools' : 'project tool pack';
  const refuse = (message: string, cause?: unknown) =>
    new KeelError(ErrorCode.usage, `${prefix}: ${message}`, { field: 'tools', module }, { cause });
  let mod: Record<string, unknown>;
  try {
    if (/\.m?ts$/.test(module)) loadTypeScript();
    mod = (await import(pathToFileURL(resolve(module)).href)) as Record<string, unknown>;
  } catch (e) {
    throw refuse(`cannot load ${module}: ${(e as Error).message}`, e);
  }
  const exported = mod.default ?? mod.tools;
  let value: unknown;
  try {
    value = typeof exported === 'function' ? await (exported as () => unknown)() : exported;
  } catch (e) {
    throw refuse(`${module}: its tools function failed: ${(e as Error).message}`, e);
  }
  if (!Array.isArray(value)) {
    throw refuse(
      `${module} must export (as default or \`tools\`) an array of tool definitions, or a function returning one`,
    );
  }
  return value as ToolDefinition[];
}
