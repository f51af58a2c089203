/**
 * Static listing of the templates in step args, for validation and static checks.
 *
 * Walks nested objects (keys in canonical order) and arrays; never resolves anything.
 */
import type { PathSegment } from './read-path.ts';
import { scanTemplates, type TemplatePart } from './scan-templates.ts';
import { formatFieldPath } from './spec-problem.ts';

/** Every string in `value` that contains a template, with its path (keys sorted, as canonical form). */
export function forEachTemplateString(
  value: unknown,
  visit: (path: readonly PathSegment[], parts: readonly TemplatePart[]) => void,
  path: PathSegment[] = [],
  seen: Set<object> = new Set(),
): void {
  if (typeof value === 'string') {
    if (value.includes('{{')) visit(path, scanTemplates(value).parts);
    return;
  }
  if (typeof value !== 'object' || value === null || seen.has(value)) return;
  seen.add(value);
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      forEachTemplateString(v, visit, [...path, i], seen);
    });
  } else {
    for (const k of Object.keys(value).sort()) {
      forEachTemplateString((value as Record<string, unknown>)[k], visit, [...path, k], seen);
    }
  }
  seen.delete(value);
}

/** `[{ field: 'body', path: 'event.payload.note' }, ...]` for every well-formed template. */
export function templateRefs(args: Record<string, unknown>): { field: string; path: string }[] {
  const out: { field: string; path: string }[] = [];
  forEachTemplateString(args, (path, parts) => {
    for (const p of parts)
      if (p.kind === 'template') out.push({ field: formatFieldPath(path), path: p.path });
  });
  return out;
}
