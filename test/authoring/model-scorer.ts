/**
 * The model-backed compiler as the corpus measure sees it (`npm run eval -- --compiler model`):
 * each request goes to the model provider through the same path as `keel draft --compiler model`
 * (src/app/model-compile.ts), and the draft through the same checks (`draftSpec`). A request the
 * provider could not answer (a network error, no recorded response) is counted, and scored as a
 * draft that asks: never as a draft.
 */
import { compileWithModel } from '../../src/app/model-compile.ts';
import type { CompiledRequest, DraftCatalog } from '../../src/core/authoring/index.ts';
import type { ModelProvider } from '../../src/ports/index.ts';

export interface ModelCompiler {
  readonly compile: (request: string, catalog: DraftCatalog) => Promise<CompiledRequest>;
  /** Requests the provider failed on, with its message. */
  readonly failed: { request: string; message: string }[];
}

export function modelCompiler(provider: ModelProvider): ModelCompiler {
  const failed: ModelCompiler['failed'] = [];
  return {
    failed,
    async compile(request, catalog) {
      try {
        return (await compileWithModel(provider, request, catalog)).compiled;
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        failed.push({ request, message });
        return {
          questions: [{ about: 'model', question: `The model could not be asked: ${message}` }],
          notes: [],
        };
      }
    },
  };
}
