/**
 * Chooses a model provider from configuration: `openai` (any OpenAI-compatible server at a base
 * URL), `anthropic` or `recorded` (a responses file), with the API key read from the environment
 * variable the config names. Bad configuration is a usage error naming the setting; an error never
 * holds the key's value, only its variable's name.
 */
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { ModelProvider } from '../../ports/index.ts';
import { loadRecordedModelProvider } from '../recorded-model/index.ts';
import { anthropicProvider } from './anthropic-provider.ts';
import { parsePrice } from './model-prices.ts';
import { openAiCompatibleProvider } from './openai-compatible-provider.ts';

export const MODEL_PROVIDERS = ['openai', 'anthropic', 'recorded'] as const;
export type ModelProviderKind = (typeof MODEL_PROVIDERS)[number];

const DEFAULT_KEY_ENV: Record<'openai' | 'anthropic', string> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
};

/**
 * The provider KEEL_MODEL_PROVIDER names, configured by KEEL_MODEL, KEEL_MODEL_BASE_URL,
 * KEEL_MODEL_API_KEY_ENV (the variable holding the key; OPENAI_API_KEY / ANTHROPIC_API_KEY by
 * default), KEEL_MODEL_PRICE ("IN,OUT" USD per million tokens), KEEL_MODEL_TIMEOUT_MS,
 * KEEL_MODEL_MAX_TOKENS, KEEL_MODEL_OUTAGE_RETRIES and KEEL_MODEL_BACKOFF_MS (how an outage is asked
 * again) and, for `recorded`, KEEL_MODEL_RESPONSES (a file). Undefined when unset.
 */
export function modelProviderFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): ModelProvider | undefined {
  const kind = env.KEEL_MODEL_PROVIDER?.trim();
  if (!kind) return undefined;
  if (!(MODEL_PROVIDERS as readonly string[]).includes(kind)) {
    throw usage(
      'KEEL_MODEL_PROVIDER',
      `expected one of ${MODEL_PROVIDERS.join(', ')}, got ${JSON.stringify(kind)}`,
    );
  }
  if (kind === 'recorded') {
    const file = env.KEEL_MODEL_RESPONSES;
    if (!file) throw usage('KEEL_MODEL_RESPONSES', 'the recorded provider needs a responses file');
    return loadRecordedModelProvider(file);
  }
  const vendor = kind as 'openai' | 'anthropic';
  const model = env.KEEL_MODEL?.trim();
  if (!model) throw usage('KEEL_MODEL', `the ${vendor} provider needs a model name`);
  const baseUrl = env.KEEL_MODEL_BASE_URL?.trim() || undefined;
  if (baseUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(baseUrl)) {
    throw usage('KEEL_MODEL_BASE_URL', `expected an http(s) URL, got ${JSON.stringify(baseUrl)}`);
  }
  const keyEnv = env.KEEL_MODEL_API_KEY_ENV?.trim() || DEFAULT_KEY_ENV[vendor];
  const apiKey = env[keyEnv] || undefined;
  // A local server (a base URL given) may need no key; the vendors' own APIs always do.
  if (!apiKey && baseUrl === undefined) {
    throw usage(
      keyEnv,
      `the ${vendor} provider needs an API key in ${keyEnv} (or a KEEL_MODEL_BASE_URL of a server that needs none)`,
    );
  }
  const priceText = env.KEEL_MODEL_PRICE?.trim();
  const price = priceText ? parsePrice(priceText) : undefined;
  if (priceText && !price) {
    throw usage(
      'KEEL_MODEL_PRICE',
      `expected "IN,OUT" in USD per million tokens (e.g. "0.15,0.6"), got ${JSON.stringify(priceText)}`,
    );
  }
  const timeoutMs = positiveInt(env, 'KEEL_MODEL_TIMEOUT_MS');
  const maxTokens = positiveInt(env, 'KEEL_MODEL_MAX_TOKENS');
  const outageRetries = countOf(env, 'KEEL_MODEL_OUTAGE_RETRIES', 10);
  const backoffMs = countOf(env, 'KEEL_MODEL_BACKOFF_MS', 60_000);
  const options = {
    model,
    ...(baseUrl ? { baseUrl } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(price ? { price } : {}),
    ...(timeoutMs ? { timeoutMs } : {}),
    ...(maxTokens ? { maxTokens } : {}),
    ...(outageRetries !== undefined ? { outageRetries } : {}),
    ...(backoffMs !== undefined ? { backoffMs } : {}),
  };
  return vendor === 'openai' ? openAiCompatibleProvider(options) : anthropicProvider(options);
}

/** KEEL_MODEL_RETRIES: how many times a schema-invalid answer is asked again (undefined: the default). */
export function modelRetriesFromEnv(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const text = env.KEEL_MODEL_RETRIES?.trim();
  if (!text) return undefined;
  if (!/^\d+$/.test(text) || Number(text) > 10)
    throw usage('KEEL_MODEL_RETRIES', `expected 0 to 10, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** A whole number from 0 to `max` in `name`, or undefined when unset. */
function countOf(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  max: number,
): number | undefined {
  const text = env[name]?.trim();
  if (!text) return undefined;
  if (!/^\d{1,9}$/.test(text) || Number(text) > max)
    throw usage(name, `expected a whole number from 0 to ${max}, got ${JSON.stringify(text)}`);
  return Number(text);
}

function positiveInt(env: Readonly<Record<string, string | undefined>>, name: string): number | undefined {
  const text = env[name]?.trim();
  if (!text) return undefined;
  if (!/^[1-9]\d{0,8}$/.test(text))
    throw usage(name, `expected a positive whole number, got ${JSON.stringify(text)}`);
  return Number(text);
}

function usage(field: string, message: string): KeelError {
  return new KeelError(ErrorCode.usage, `${field}: ${message}`, { field });
}
