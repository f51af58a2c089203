/**
 * The `tools:` section of a tools file as tool definitions: each entry checked by core's
 * `parseHttpTools` (errors name the file, the tool and the field) and made an HTTP tool by the
 * HTTP adapter. Secrets are read by the tool at call time, never here.
 */
import { httpTool } from '../adapters/http-tools/index.ts';
import { parseHttpTools } from '../core/tools/index.ts';
import type { ToolDefinition } from '../ports/index.ts';

export function httpToolsFromSection(section: unknown, file: string): ToolDefinition[] {
  return parseHttpTools(section, file).map((spec) => httpTool(spec));
}
