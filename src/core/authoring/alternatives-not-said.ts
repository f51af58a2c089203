/**
 * Values a draft tests as alternatives ("category is harassment or spam") that the words never
 * join: "when a post is reported for harassment, remove it for spam" says one value of the events
 * and another of the removal, and a draft testing either removes the spam posts too. Alternatives
 * are read only where the request says them together ("spam or harassment", "auth, search",
 * "monitors & headsets"). Read on the request as written and the draft as drafted, so it holds
 * whatever compiled it. Pure.
 */
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import { draftTests } from './draft-tests.ts';
import { asLiteral } from './grammar/request-context.ts';
import { alternativesOf } from './test-comparisons.ts';

/** Words that join values said together. */
const JOINED = /^(?:\s*(?:,|or|and|&|\/|nor|either)\s*)+(?:the\s+)?$/;

/** Each `or` of tests of one field for values the request says apart, as the draft writes it. */
export function alternativesNotSaid(request: string, spec: WorkflowSpec): string[] {
  const text = request.toLowerCase();
  const out: string[] = [];
  for (const { test } of draftTests(spec))
    for (const { path, values: said } of alternativesOf(test)) {
      if (!path.startsWith('payload.') || said.some((v) => typeof v !== 'string')) continue;
      const values = said.map((v) => String(v).toLowerCase());
      const group = said.map((v) => `${path} == ${JSON.stringify(v)}`).join(' or ');
      const at = values
        .map((v) => {
          const escaped = asLiteral(v).replace(/[_-]/g, '[ _-]');
          const m = new RegExp(`\\b${escaped}\\b`).exec(text);
          return m ? { start: m.index, end: m.index + m[0].length } : undefined;
        })
        .filter((x) => x !== undefined)
        .sort((a, b) => a.start - b.start);
      // Each value said next to the one before it, joined by "or", "and", a comma or a slash.
      if (at.length !== values.length) continue;
      if (at.some((x, i) => i > 0 && !JOINED.test(text.slice(at[i - 1]!.end, x.start)))) out.push(group);
    }
  return out;
}
