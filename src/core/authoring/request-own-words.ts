/**
 * A request's own words, as the draft-level checks read them (dropped-exclusions.ts,
 * fields-read-nowhere.ts): lower case, with quoted sentences, texts with a placeholder and the
 * words a step sends ("DM them: unless you call us ...") blanked out, for those are texts, not
 * what the workflow tests. A quoted value ("wrong item") is kept. Pure.
 */
import { toolSteps } from '../spec/flow-steps.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';

export function requestOwnWords(request: string, spec: WorkflowSpec): string {
  let t = request
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    // (The British spelling read as the compiler reads it: normalise-request.ts.)
    .replace(/\bcheque\b/g, 'check');
  t = t.replace(/"[^"]*"|\u201c[^\u201d]*\u201d|(?<=^|[\s:(])'[^']*'(?=$|[\s.,;:!?)])/g, (q) =>
    /</.test(q) || q.trim().split(/\s+/).length > 2 ? ' ' : q,
  );
  for (const s of toolSteps(spec))
    for (const v of Object.values(s.args))
      if (typeof v === 'string' && /\s/.test(v))
        t = t.replace(
          v
            .toLowerCase()
            .replace(/[\u2018\u2019]/g, "'")
            .replace(/\.$/, ''),
          ' ',
        );
  return t;
}
