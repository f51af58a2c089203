export { anthropicProvider } from './anthropic-provider.ts';
export { costMicroUsd, MODEL_PRICES, type ModelPrice, parsePrice, priceOf } from './model-prices.ts';
export {
  MODEL_PROVIDERS,
  type ModelProviderKind,
  modelProviderFromEnv,
  modelRetriesFromEnv,
} from './model-provider-config.ts';
export { type HttpModelOptions, openAiCompatibleProvider } from './openai-compatible-provider.ts';
