/**
 * What a step's argument value means, written out so that two spellings of it compare equal:
 * each string split into text and templates by what each template names (`{{ event.subject }}`
 * and `{{event.subject}}` are one), a reference to a step read through `stepName` (so a step
 * renamed in a new version, and every reference to it, still compare equal), objects by sorted
 * key. Every value is tagged by its kind, so no argument value can pass for another. Never
 * resolves a template or reads a source. Pure.
 */
import { hasTemplate, scanTemplates } from './scan-templates.ts';

export type NormalArg = readonly unknown[];

export function normalizeArgs(value: unknown, stepName: (name: string) => string = (n) => n): NormalArg {
  if (typeof value === 'string') {
    if (!hasTemplate(value)) return ['s', value];
    return [
      't',
      scanTemplates(value).parts.map((p) =>
        p.kind === 'text'
          ? ['text', p.text]
          : p.kind === 'invalid'
            ? ['invalid', p.path]
            : p.ref.root === 'step'
              ? ['step', stepName(p.ref.step), p.ref.path]
              : p.ref.root === 'item'
                ? ['item', p.ref.name, p.ref.path]
                : [p.ref.root, p.ref.root === 'event' ? p.ref.path : p.ref.ref],
      ),
    ];
  }
  if (Array.isArray(value)) return ['a', value.map((v) => normalizeArgs(v, stepName))];
  if (typeof value === 'object' && value !== null)
    return [
      'o',
      Object.keys(value)
        .sort()
        .map((k) => [k, normalizeArgs((value as Record<string, unknown>)[k], stepName)]),
    ];
  return ['v', value ?? null];
}

/** Whether two argument values mean the same (`stepName` maps the first one's step names). */
export function sameArgs(a: unknown, b: unknown, stepName?: (name: string) => string): boolean {
  return JSON.stringify(normalizeArgs(a, stepName)) === JSON.stringify(normalizeArgs(b));
}
