/**
 * A ModelProvider over the OpenAI chat completions wire format, with fetch: OpenAI itself, or any
 * server speaking it at a base URL (llama.cpp, vLLM, ...). It asks for the slot's schema through
 * `response_format: {type: "json_schema"}`, and reports the tokens the server counted with their
 * price. The API key goes only into the Authorization header; it never enters an answer or an error.
 */
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { ModelAnswer, ModelProvider, ModelRequest } from '../../ports/index.ts';
import { costMicroUsd, type ModelPrice, priceOf } from './model-prices.ts';
import { postJson } from './post-json.ts';
import { parseSlotAnswer, SLOT_INSTRUCTIONS, userText, wrappedSchema } from './slot-prompt.ts';

export interface HttpModelOptions {
  readonly model: string;
  /** The API's base URL (OpenAI: https://api.openai.com/v1; Anthropic: https://api.anthropic.com). */
  readonly baseUrl?: string;
  /** Absent: no auth header (a local server). */
  readonly apiKey?: string;
  /** Overrides the price table for this model. */
  readonly price?: ModelPrice;
  /** Per request, 60 s by default. */
  readonly timeoutMs?: number;
  /** Largest answer read, 1 MiB by default. */
  readonly maxResponseBytes?: number;
  /** Anthropic requires one; 1024 by default. */
  readonly maxTokens?: number;
  /** How many times an outage (no connection, timeout, 429, 5xx) is asked again; 3 by default. */
  readonly outageRetries?: number;
  /** The first wait before asking again, doubled each time (at most 10 s); 500 ms by default. */
  readonly backoffMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 1 << 20;

export function openAiCompatibleProvider(o: HttpModelOptions): ModelProvider {
  const base = (o.baseUrl ?? 'https://api.openai.com/v1').replace(/\/+$/, '');
  const url = `${base}/chat/completions`;
  const price = priceOf(o.model, o.price);
  const answer = async (r: ModelRequest): Promise<ModelAnswer> => {
    const body = {
      model: o.model,
      messages: [
        { role: 'system', content: SLOT_INSTRUCTIONS },
        { role: 'user', content: userText(r) },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'slot_value', schema: wrappedSchema(r.schema), strict: false },
      },
      ...(o.maxTokens !== undefined ? { max_tokens: o.maxTokens } : {}),
    };
    const res = (await postJson({
      provider: 'openai',
      url,
      headers: o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {},
      body,
      timeoutMs: o.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxBytes: o.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      secrets: o.apiKey ? [o.apiKey] : [],
      ...(o.outageRetries !== undefined ? { retries: o.outageRetries } : {}),
      ...(o.backoffMs !== undefined ? { backoffMs: o.backoffMs } : {}),
    })) as {
      model?: unknown;
      choices?: { message?: { content?: unknown; refusal?: unknown } }[];
      usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
    };
    const message = res?.choices?.[0]?.message;
    const content = message?.content;
    const inputTokens = tokens(res?.usage?.prompt_tokens);
    const outputTokens = tokens(res?.usage?.completion_tokens);
    const usage = {
      provider: 'openai',
      model: o.model,
      inputTokens,
      outputTokens,
      costMicroUsd: costMicroUsd(price, inputTokens, outputTokens),
    };
    if (typeof content !== 'string') {
      if (typeof message?.refusal === 'string') {
        return { raw: message.refusal, problem: 'the model refused to answer', usage };
      }
      throw new KeelError(
        ErrorCode.modelUnavailable,
        `openai at ${url}: the answer has no choices[0].message.content`,
        {
          provider: 'openai',
          url,
        },
      );
    }
    return { raw: content, ...parseSlotAnswer(content), usage };
  };
  return {
    answer,
    async complete(r) {
      return (await answer(r)).value ?? null;
    },
  };
}

/** A token count as the provider reported it; anything else counts as 0. */
export function tokens(v: unknown): number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : 0;
}
