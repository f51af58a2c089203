/**
 * What a model's tokens cost: USD per million input and output tokens, by model name. The table holds
 * list prices as published by each vendor when it was written; a deployment overrides it with
 * `prices` (or KEEL_MODEL_PRICE). A model not in the table and not priced costs nothing: local
 * servers (llama.cpp, vLLM) are free to run, and the ledger still records the tokens.
 */

/** USD per million tokens, input then output. */
export interface ModelPrice {
  readonly inputUsdPerMTok: number;
  readonly outputUsdPerMTok: number;
}

export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  'gpt-4o': { inputUsdPerMTok: 2.5, outputUsdPerMTok: 10 },
  'gpt-4o-mini': { inputUsdPerMTok: 0.15, outputUsdPerMTok: 0.6 },
  'gpt-4.1': { inputUsdPerMTok: 2, outputUsdPerMTok: 8 },
  'gpt-4.1-mini': { inputUsdPerMTok: 0.4, outputUsdPerMTok: 1.6 },
  'gpt-4.1-nano': { inputUsdPerMTok: 0.1, outputUsdPerMTok: 0.4 },
  'claude-opus-4-0': { inputUsdPerMTok: 15, outputUsdPerMTok: 75 },
  'claude-sonnet-4-0': { inputUsdPerMTok: 3, outputUsdPerMTok: 15 },
  'claude-3-7-sonnet-latest': { inputUsdPerMTok: 3, outputUsdPerMTok: 15 },
  'claude-3-5-haiku-latest': { inputUsdPerMTok: 0.8, outputUsdPerMTok: 4 },
};

/** The price of `model`: `override` first, then the table, then free. */
export function priceOf(model: string, override?: ModelPrice): ModelPrice {
  return override ?? MODEL_PRICES[model] ?? { inputUsdPerMTok: 0, outputUsdPerMTok: 0 };
}

/** What `inputTokens` and `outputTokens` cost, in whole micro-dollars, rounded up. */
export function costMicroUsd(price: ModelPrice, inputTokens: number, outputTokens: number): number {
  // USD per million tokens is micro-dollars per token.
  return Math.ceil(inputTokens * price.inputUsdPerMTok + outputTokens * price.outputUsdPerMTok - 1e-9);
}

/** Reads "IN,OUT" (USD per million tokens), as KEEL_MODEL_PRICE holds it; undefined when malformed. */
export function parsePrice(text: string): ModelPrice | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*$/.exec(text);
  if (!m) return undefined;
  return { inputUsdPerMTok: Number(m[1]), outputUsdPerMTok: Number(m[2]) };
}
