/**
 * Tools files: a YAML or JSON file (`*.yaml`, `*.yml`, `*.json`) given to --tools or KEEL_TOOLS,
 * told from a tool pack module by its extension. It is reviewed configuration, not code: its
 * top-level sections declare tools as data — `tools:` HTTP tools (docs/tools.md). A key that is
 * not a known section is an error naming it; every error names the file.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { ErrorCode, KeelError } from '../core/errors.ts';
import type { ToolDefinition } from '../ports/index.ts';

/** Whether --tools names a tools file (data) rather than a tool pack module (code). */
export function isToolsFile(path: string): boolean {
  return /\.(ya?ml|json)$/i.test(path);
}

/** The sections a tools file may have. */
export const TOOLS_FILE_SECTIONS = ['tools'] as const;

export async function loadToolsFile(file: string): Promise<ToolDefinition[]> {
  const refuse = (message: string, field: string, cause?: unknown) =>
    new KeelError(ErrorCode.usage, `--tools: ${file}: ${message}`, { file, field }, { cause });
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw refuse(`cannot read it: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'tools', e);
  }
  let doc: unknown;
  try {
    doc = /\.json$/i.test(file) ? JSON.parse(text) : parseYaml(text, { uniqueKeys: true });
  } catch (e) {
    throw refuse(`not valid ${/\.json$/i.test(file) ? 'JSON' : 'YAML'}: ${(e as Error).message}`, 'tools', e);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw refuse(`expected a mapping with a ${TOOLS_FILE_SECTIONS.join(' or ')} section`, 'tools');
  const sections = doc as Record<string, unknown>;
  for (const key of Object.keys(sections)) {
    if (!(TOOLS_FILE_SECTIONS as readonly string[]).includes(key))
      throw refuse(`${key}: not a section of a tools file (expected ${TOOLS_FILE_SECTIONS.join(', ')})`, key);
  }
  // Loaded here, not at start-up: commands without tools never read the adapters.
  const { httpToolsFromSection } = await import('../app/index.ts');
  const tools: ToolDefinition[] = [];
  if (sections.tools !== undefined) tools.push(...httpToolsFromSection(sections.tools, file));
  // An `mcp:` section (MCP servers' tools, issue 17 part 2) is handed to its loader here.
  return tools;
}
