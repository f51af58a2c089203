/**
 * Project templates (templates/<name>/ in the package, docs/templates.md): each a small project —
 * workflow specs with `tests:`, sample events, a tool pack (keel.tools.mjs, plain JavaScript that
 * imports nothing of Keel's, every tool with a `simulate`), a README and, where it has one, a
 * tenant policy. `keel templates ls` lists them from their template.json; `keel init --template`
 * copies one into a directory, never overwriting a file that exists (like `keel init`).
 * Reads the package's own files only; never writes outside the target directory.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCode, KeelError } from '../core/errors.ts';

/** Where the templates lie: templates/ in the checkout, dist/templates/ in the package. */
export const TEMPLATES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'templates');

const NAME = /^[a-z][a-z0-9-]{0,63}$/;

/** What `keel templates ls` shows of a template (its template.json, and what its directory holds). */
export interface TemplateInfo {
  readonly name: string;
  readonly title: string;
  readonly domain: string;
  readonly summary: string;
  /** The workflow ids of its specs (workflows/<id>.yaml), sorted. */
  readonly workflows: readonly string[];
  /** Its tools, as its tool pack names them (from template.json). */
  readonly tools: readonly string[];
  /** Whether it ships a tenant policy (policy.yaml) its commands are meant to run with. */
  readonly policy: boolean;
}

function readInfo(name: string): TemplateInfo {
  const dir = join(TEMPLATES_DIR, name);
  const file = join(dir, 'template.json');
  const bad = (problem: string): never => {
    throw new KeelError(ErrorCode.usage, `template ${name}: template.json: ${problem}`, {
      field: 'template',
      template: name,
    });
  };
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    return bad(`cannot read it: ${(e as Error).message}`);
  }
  const text = (k: string): string =>
    typeof raw[k] === 'string' && raw[k] !== '' ? (raw[k] as string) : bad(`${k}: expected a string`);
  if (text('name') !== name) bad(`name: expected ${JSON.stringify(name)}, its directory's name`);
  const tools = raw.tools;
  if (!Array.isArray(tools) || !tools.every((t) => typeof t === 'string'))
    bad('tools: expected a list of tool names');
  return {
    name,
    title: text('title'),
    domain: text('domain'),
    summary: text('summary'),
    workflows: readdirSync(join(dir, 'workflows'))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => f.slice(0, -'.yaml'.length))
      .sort(),
    tools: tools as string[],
    policy: existsSync(join(dir, 'policy.yaml')),
  };
}

/** The names of every template, sorted. */
export function templateNames(): string[] {
  return readdirSync(TEMPLATES_DIR, { withFileTypes: true })
    .filter(
      (e) => e.isDirectory() && NAME.test(e.name) && existsSync(join(TEMPLATES_DIR, e.name, 'template.json')),
    )
    .map((e) => e.name)
    .sort();
}

/** Every template, sorted by name. */
export function listTemplates(): TemplateInfo[] {
  return templateNames().map(readInfo);
}

/** The template of that name, or a usage error listing the ones there are. */
export function findTemplate(name: string): TemplateInfo {
  const names = templateNames();
  if (!names.includes(name)) {
    throw new KeelError(
      ErrorCode.usage,
      `--template: no template named ${JSON.stringify(name)}; available: ${names.join(', ')} (keel templates ls)`,
      { field: 'template', template: name, available: names },
    );
  }
  return readInfo(name);
}

/** What `initFromTemplate` wrote, and what it left as it was (the file existed). */
export interface TemplateWrite {
  readonly written: string[];
  readonly kept: string[];
}

/**
 * Copies the template into `dir`: its workflows/, events/, keel.tools.mjs, README.md and
 * policy.yaml when it has one (template.json stays behind). A file that exists is kept.
 */
export function initFromTemplate(name: string, dir: string): TemplateWrite {
  findTemplate(name);
  const from = join(TEMPLATES_DIR, name);
  const written: string[] = [];
  const kept: string[] = [];
  const shown = (to: string) => relative(process.cwd(), to) || to;
  const copyTree = (src: string, to: string) => {
    for (const entry of readdirSync(src, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      if ((entry.name === 'template.json' && src === from) || entry.name.startsWith('.')) continue;
      const s = join(src, entry.name);
      const t = join(to, entry.name);
      if (entry.isDirectory()) copyTree(s, t);
      else if (entry.isFile()) {
        if (existsSync(t)) kept.push(shown(t));
        else {
          mkdirSync(dirname(t), { recursive: true });
          copyFileSync(s, t);
          written.push(shown(t));
        }
      }
    }
  };
  copyTree(from, dir);
  return { written, kept };
}
