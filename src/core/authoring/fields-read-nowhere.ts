/**
 * Fields a request names that its draft reads nowhere: a field of several words said as its words
 * ("first payout is no: pay it", "claims with a police report"), with no test, argument or text of
 * the draft reading it, says which events and would be dropped. Read on the request's own words
 * (request-own-words.ts) and the draft as drafted, so it holds whatever compiled it. So is a thing
 * the events are said to have ("reports that have receipts") that a tool or a field of the catalog
 * names and the draft reads nowhere: the reports without receipts would be paid too. Pure.
 */
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import type { DraftCatalog } from './compiled-request.ts';
import { testsText } from './draft-tests.ts';
import { requestOwnWords } from './request-own-words.ts';
import { lemmas } from './request-words.ts';

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

/** "that have receipts", "which include a police report", "who have no open claims". */
const HAVING =
  /\b(?:that|which|who|whose)\s+(?:have|has|had|include|includes|contain|contains|come with|comes with)\s+(?:a |an |the |their |its |any |no |some )?([a-z][a-z-]+(?: (?!(?:for|and|or|but|to|then|with|in|on|of|by|from|under|over|at|as|if|when|unless|after|before|once|until|so)\b)[a-z][a-z-]+)?)/g;

/**
 * What `request` says its events have (`HAVING`) that a catalog tool's name or result, or an event
 * field, names and no test of `spec` reads: each as the words said it.
 */
export function possessionsReadNowhere(request: string, spec: WorkflowSpec, catalog: DraftCatalog): string[] {
  const t = requestOwnWords(request, spec);
  // Read only by a test: a step that looks them up ("check the receipts") leaves the reports without any.
  const tested = testsText(spec);
  const named = new Set(
    [
      ...catalog.tools.flatMap((tool) => [
        ...tool.name.split('_'),
        ...Object.keys((tool.result?.properties ?? {}) as Record<string, unknown>).flatMap((k) =>
          k.split('_'),
        ),
      ]),
      ...(catalog.events ?? []).flatMap((e) => e.payload.flatMap((f) => f.split('_'))),
    ].filter((w) => w.length > 1),
  );
  const out: string[] = [];
  for (const m of t.matchAll(HAVING)) {
    const forms = m[1]!.split(' ').flatMap((w) => lemmas(w).filter((l) => l.length > 1));
    if (forms.some((l) => named.has(l)) && !forms.some((l) => tested.includes(l))) out.push(m[0].trim());
  }
  return out;
}
