/**
 * A model provider that serves recorded responses: for offline tests, demos and CI, no vendor SDK.
 *
 * Each response names a `match`: a text the prompt must contain (the first response that matches
 * wins; `*` matches any prompt). It answers the same prompt the same way every time and never reaches
 * a network. A prompt no response matches is an error naming the prompt, so a test cannot pass on
 * a value nobody recorded. Responses load from an object or a JSON file `{"responses": [...]}`.
 */
import { readFileSync } from 'node:fs';
import { ErrorCode, KeelError } from '../../core/errors.ts';
import type { ModelProvider, ModelRequest } from '../../ports/index.ts';

export interface RecordedResponse {
  /** Text the prompt contains, or `*` for any prompt. */
  readonly match: string;
  /** The value the model answers (any JSON). */
  readonly response: unknown;
}

export interface RecordedModelProvider extends ModelProvider {
  /** The requests answered so far, in order (what a test asserts on). */
  readonly requests: readonly ModelRequest[];
}

export function recordedModelProvider(responses: readonly RecordedResponse[]): RecordedModelProvider {
  const list = checkResponses(responses, '(responses)');
  const requests: ModelRequest[] = [];
  return {
    requests,
    async complete(request) {
      const found = list.find((r) => r.match === '*' || request.prompt.includes(r.match));
      if (!found) {
        throw new KeelError(
          ErrorCode.notFound,
          `no recorded model response matches the prompt ${JSON.stringify(request.prompt.slice(0, 80))}`,
          { prompt: request.prompt },
        );
      }
      requests.push(request);
      return structuredClone(found.response);
    },
  };
}

/** Reads `{"responses": [{"match": "...", "response": ...}, ...]}` from a JSON file. */
export function loadRecordedModelProvider(file: string): RecordedModelProvider {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new KeelError(
      ErrorCode.usage,
      `${file}: cannot read recorded model responses: ${e instanceof Error ? e.message : String(e)}`,
      { file },
    );
  }
  const responses = (value as { responses?: unknown } | null)?.responses;
  return recordedModelProvider(checkResponses(responses, file));
}

function checkResponses(v: unknown, where: string): RecordedResponse[] {
  if (!Array.isArray(v)) {
    throw new KeelError(ErrorCode.usage, `${where}: responses: expected a list of {match, response}`, {
      field: 'responses',
    });
  }
  return v.map((r, i) => {
    const ok =
      typeof r === 'object' &&
      r !== null &&
      typeof (r as RecordedResponse).match === 'string' &&
      (r as RecordedResponse).response !== undefined;
    if (!ok) {
      throw new KeelError(
        ErrorCode.usage,
        `${where}: responses[${i}]: expected {"match": "<text in the prompt>", "response": <JSON>}`,
        { field: `responses[${i}]` },
      );
    }
    return { match: (r as RecordedResponse).match, response: (r as RecordedResponse).response };
  });
}
