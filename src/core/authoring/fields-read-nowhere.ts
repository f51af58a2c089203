/**
 * Fields a request names that its draft reads nowhere: a field of several words said as its words
 * ("first payout is no: pay it", "claims with a police report"), with no test, argument or text of
 * the draft reading it, says which events and would be dropped. Read on the request's own words
 * (request-own-words.ts) and the draft as drafted, so it holds whatever compiled it. Pure.
 */
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import type { DraftCatalog } from './compiled-request.ts';
import { requestOwnWords } from './request-own-words.ts';

/** The trigger events' fields of several words `request` says and `spec` reads nowhere. */
export function fieldsReadNowhere(request: string, spec: WorkflowSpec, catalog: DraftCatalog): string[] {
  const t = requestOwnWords(request, spec);
  const drafted = JSON.stringify({ triggers: spec.triggers, steps: spec.steps });
  const fields = new Set(
    spec.triggers.flatMap((tr) => catalog.events?.find((e) => e.type === tr.event)?.payload ?? []),
  );
  return [...fields].filter((f) => {
    if (!f.includes('_')) return false;
    const said = new RegExp(
      `(regardless of |whatever |whichever |whether or not )?(?:the |their |its )?\\b${f.replace(/_/g, '[ _-]')}\\b`,
    ).exec(t);
    // (Said not to matter, or a step's argument of that name: "regardless of the leave type ... as unpaid".)
    return said !== null && said[1] === undefined && !new RegExp(`\\.${f}\\b|"${f}":`).test(drafted);
  });
}
