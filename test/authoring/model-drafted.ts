/**
 * A model's answer drafted as `keel draft --compiler model` drafts it: read by `readModelDraft`
 * (no questions unless the answer asks some) for `request` over `catalog`, then checked by
 * `draftSpec`. The tests of a draft-level check use it to show the check holds whatever compiled
 * the draft; `answer` may be a whole spec (its triggers, steps and limits are what is read).
 */
import { type Draft, type DraftCatalog, draftSpec } from '../../src/core/authoring/index.ts';
import { readModelDraft } from '../../src/core/authoring/model-draft.ts';

export const modelDrafted = (answer: object, request: string, catalog: DraftCatalog): Draft =>
  draftSpec(readModelDraft({ questions: [], ...answer }, request, catalog), catalog);
