/**
 * A ModelProvider over the Anthropic Messages API, with fetch. The slot's schema is the input schema
 * of one tool the model is made to call (`tool_choice`), which is how the Messages API constrains
 * structured output; the tool's input is the answer. The API key goes only into `x-api-key`; it never
 * enters an answer or an error.
 */
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { ModelAnswer, ModelProvider, ModelRequest } from '../../ports/index.ts';
import { costMicroUsd, priceOf } from './model-prices.ts';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  type HttpModelOptions,
  tokens,
} from './openai-compatible-provider.ts';
import { postJson } from './post-json.ts';
import { parseSlotAnswer, SLOT_INSTRUCTIONS, userText, wrappedSchema } from './slot-prompt.ts';

export const ANTHROPIC_VERSION = '2023-06-01';
const TOOL = 'slot_value';

export function anthropicProvider(o: HttpModelOptions): ModelProvider {
  const base = (o.baseUrl ?? 'https://api.anthropic.com').replace(/\/+$/, '');
  const url = `${base}/v1/messages`;
  const price = priceOf(o.model, o.price);
  const answer = async (r: ModelRequest): Promise<ModelAnswer> => {
    const body = {
      model: o.model,
      max_tokens: o.maxTokens ?? 1024,
      system: SLOT_INSTRUCTIONS,
      messages: [{ role: 'user', content: userText(r) }],
      tools: [{ name: TOOL, description: 'Give the value.', input_schema: wrappedSchema(r.schema) }],
      tool_choice: { type: 'tool', name: TOOL },
    };
    const res = (await postJson({
      provider: 'anthropic',
      url,
      headers: {
        'anthropic-version': ANTHROPIC_VERSION,
        ...(o.apiKey ? { 'x-api-key': o.apiKey } : {}),
      },
      body,
      timeoutMs: o.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxBytes: o.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      secrets: o.apiKey ? [o.apiKey] : [],
      ...(o.outageRetries !== undefined ? { retries: o.outageRetries } : {}),
      ...(o.backoffMs !== undefined ? { backoffMs: o.backoffMs } : {}),
    })) as {
      content?: { type?: unknown; name?: unknown; input?: unknown; text?: unknown }[];
      usage?: { input_tokens?: unknown; output_tokens?: unknown };
    };
    const inputTokens = tokens(res?.usage?.input_tokens);
    const outputTokens = tokens(res?.usage?.output_tokens);
    const usage = {
      provider: 'anthropic',
      model: o.model,
      inputTokens,
      outputTokens,
      costMicroUsd: costMicroUsd(price, inputTokens, outputTokens),
    };
    const blocks = Array.isArray(res?.content) ? res.content : undefined;
    if (!blocks) {
      throw new KeelError(ErrorCode.modelUnavailable, `anthropic at ${url}: the answer has no content`, {
        provider: 'anthropic',
        url,
      });
    }
    const call = blocks.find((b) => b?.type === 'tool_use' && b.name === TOOL);
    if (call) {
      const raw = JSON.stringify(call.input ?? null);
      return { raw, ...parseSlotAnswer(raw), usage };
    }
    // No tool call: the model wrote text instead; it may still be the JSON asked for.
    const text = blocks
      .filter((b) => b?.type === 'text' && typeof b.text === 'string')
      .map((b) => b.text)
      .join('');
    return { raw: text, ...parseSlotAnswer(text), usage };
  };
  return {
    answer,
    async complete(r) {
      return (await answer(r)).value ?? null;
    },
  };
}
