/**
 * `keel init`: copies the support-desk example (specs and events) into a project directory so a
 * newcomer has files to validate, publish and emit. Never overwrites an existing file.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const EXAMPLE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'support-desk');

export function initProject(dir: string): string[] {
  const written: string[] = [];
  const copy = (from: string, to: string) => {
    if (existsSync(to)) return;
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(from, to);
    written.push(relative(process.cwd(), to) || to);
  };
  for (const f of readdirSync(EXAMPLE).filter((f) => f.endsWith('.yaml')))
    copy(join(EXAMPLE, f), join(dir, 'workflows', f));
  for (const f of readdirSync(join(EXAMPLE, 'events')))
    copy(join(EXAMPLE, 'events', f), join(dir, 'events', f));
  return written;
}
