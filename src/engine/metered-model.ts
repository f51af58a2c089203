/**
 * A model slot's live draw from a metering provider: ask, check the value against the slot schema,
 * ask again (telling the model what was wrong) at most `retries` times, and add up every attempt's
 * tokens and price. What it returns is ledgered whole by the walk (`source.drawn` with `model`), so
 * replay never asks again. A last answer that still does not fit comes back as `invalid` with its raw
 * text bounded to RAW_ANSWER_LIMIT characters; the walk refuses the step. Never sees an API key.
 */
import type { ModelCallEntry } from '../core/ledger/index.ts';
import { formatArgProblem, validateValue } from '../core/tools/index.ts';
import type { ModelProvider, ModelRequest } from '../ports/index.ts';

/** How many characters of a refused raw answer the ledger keeps. */
export const RAW_ANSWER_LIMIT = 2000;
/** How many times a schema-invalid answer is asked again by default. */
export const DEFAULT_MODEL_RETRIES = 2;

export interface ModelDraw {
  readonly value: unknown;
  readonly model?: ModelCallEntry;
}

export async function meteredModelDraw(
  provider: Required<Pick<ModelProvider, 'answer'>>,
  request: ModelRequest,
  retries: number,
): Promise<ModelDraw> {
  let inputTokens = 0;
  let outputTokens = 0;
  let costMicroUsd = 0;
  let retry: ModelRequest['retry'];
  const tries = Math.max(0, Math.floor(retries)) + 1;
  for (let attempt = 1; ; attempt++) {
    const a = await provider.answer(retry ? { ...request, retry } : request);
    inputTokens += a.usage.inputTokens;
    outputTokens += a.usage.outputTokens;
    costMicroUsd += a.usage.costMicroUsd;
    const problem =
      a.value === undefined
        ? (a.problem ?? 'the answer is not JSON')
        : validateValue(request.schema, a.value).map(formatArgProblem).join('; ');
    const meta = {
      provider: a.usage.provider,
      model: a.usage.model,
      inputTokens,
      outputTokens,
      costMicroUsd,
      attempts: attempt,
    };
    if (problem === '') return { value: a.value ?? null, model: meta };
    if (attempt >= tries) {
      const raw = a.raw.length > RAW_ANSWER_LIMIT ? `${a.raw.slice(0, RAW_ANSWER_LIMIT)}…` : a.raw;
      return { value: null, model: { ...meta, invalid: { raw, problem } } };
    }
    retry = { raw: a.raw.slice(0, RAW_ANSWER_LIMIT), problem };
  }
}
