/**
 * The model-backed draft compiler (`keel draft --compiler model`, `npm run eval -- --compiler
 * model`): asks the model provider for a draft answer under the strict answer schema, then reads
 * it as a compiled request. What the model answered is returned beside it, so a caller can show it
 * or record it. Whatever compiled a request, `draftSpec` then applies the same checks.
 */
import {
  type CompiledRequest,
  type CompileOptions,
  DRAFT_ANSWER_SCHEMA,
  type DraftCatalog,
  draftPrompt,
  readModelDraft,
} from '../core/authoring/index.ts';
import type { ModelProvider } from '../ports/index.ts';

export async function compileWithModel(
  provider: ModelProvider,
  request: string,
  catalog: DraftCatalog,
  options: CompileOptions = {},
): Promise<{ compiled: CompiledRequest; answer: unknown }> {
  const answer = await provider.complete({
    prompt: draftPrompt(request, catalog),
    schema: DRAFT_ANSWER_SCHEMA,
    catalog: catalog.tools.map((t) => ({ name: t.name, description: t.description, args: t.args })),
  });
  return { compiled: readModelDraft(answer, request, catalog, options), answer };
}
