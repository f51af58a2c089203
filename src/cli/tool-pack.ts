/**
 * Tool packs: a module (TypeScript or JavaScript) whose default export — or `tools` export — is an
 * array of tool definitions, or a function (possibly async) returning one. `--tools <module>` or
 * KEEL_TOOLS names it; without either, a project's `keel.tools.ts` (or `.mts`, `.js`, `.mjs`) in
 * the working directory is loaded (`keel init` writes one). The module is trusted code: it runs in
 * the process, like any other tool handler. pack-hooks.ts, registered before a pack is imported,
 * lets it import `keel` where no Keel is installed beside it (it gets the Keel running it) and
 * lets a TypeScript pack load without tsx (Node 20 cannot strip types: it is transpiled). Each
 * definition is checked as registration checks it (tool-registry.ts), naming the module.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ErrorCode, isKeelError, KeelError } from '../core/errors.ts';
import type { ToolDefinition } from '../ports/index.ts';
import { importsOnlyBuiltins } from './imports-only-builtins.ts';

/** The project tool pack loaded when neither --tools nor KEEL_TOOLS names one, first found wins. */
export const DEFAULT_TOOL_PACKS = ['keel.tools.ts', 'keel.tools.mts', 'keel.tools.js', 'keel.tools.mjs'];

/** The working directory's project tool pack, if it has one. */
export function defaultToolPack(dir = process.cwd()): string | undefined {
  return DEFAULT_TOOL_PACKS.find((f) => existsSync(resolve(dir, f)));
}

let packHooks = false;

/**
 * Whether a pack needs pack-hooks.ts: a TypeScript pack does, and so does one beside which no
 * Keel is installed (its `keel` imports resolve to the Keel running it), unless it imports nothing
 * but Node's built-in modules (imports-only-builtins.ts: then it cannot reach `keel`, as
 * `keel init`'s templates do not). Registering the hooks starts Node's loader thread (~80 ms), so
 * a `.js` pack that needs neither skips it.
 */
export function needsPackHooks(file: string): boolean {
  if (/\.m?ts$/.test(file)) return true;
  try {
    createRequire(file).resolve('keel/package.json');
    return false;
  } catch {}
  try {
    return !importsOnlyBuiltins(readFileSync(file, 'utf8'));
  } catch {
    return true; // unreadable: the import reports it
  }
}

/** Registers pack-hooks.ts in this process (once): `keel` imports and `.ts` modules for packs. */
function registerPackHooks(): void {
  if (packHooks) return;
  packHooks = true;
  // This module runs as the source (.ts, under tsx) or as its build (.js); its sibling is alike.
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  register(new URL(`./pack-hooks${ext}`, import.meta.url));
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
  // Keel's own modules are loaded before the hooks are registered: once they are, every module
  // resolved goes through Node's loader thread, a round trip each (~0.15 s for these).
  const { parseToolDefinition } = await import('../app/index.ts');
  let mod: Record<string, unknown>;
  try {
    if (needsPackHooks(resolve(module))) registerPackHooks();
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
  // Each definition checked here too, so a refusal names the pack (and `tools[i]` until a name).
  return value.map((d, i) => {
    try {
      return parseToolDefinition(d, `tools[${i}]`);
    } catch (e) {
      if (!isKeelError(e)) throw e;
      throw new KeelError(ErrorCode.usage, `${prefix}: ${module}: ${e.message}`, { ...e.details, module });
    }
  });
}
