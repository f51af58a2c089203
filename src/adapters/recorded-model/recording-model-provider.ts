/**
 * A model provider that records what another answers, in the format the recorded provider serves
 * (`{"responses": [{match, response}]}`): a measure made once against a live model can be replayed
 * offline, answer for answer. Each response is matched by its whole prompt; the file lists the
 * longest prompts first, so a prompt that contains another (a request that extends another) is
 * never served the shorter one's answer.
 */
import { writeFileSync } from 'node:fs';
import type { ModelProvider } from '../../ports/index.ts';
import type { RecordedResponse } from './recorded-model-provider.ts';

export interface RecordingModelProvider extends ModelProvider {
  /** The answers so far, one per distinct prompt (the last answer of a prompt asked twice). */
  readonly recorded: () => RecordedResponse[];
  /** Writes them as a responses file the recorded provider loads. */
  save(file: string): void;
}

export function recordingModelProvider(inner: ModelProvider): RecordingModelProvider {
  const answers = new Map<string, unknown>();
  const recorded = () =>
    [...answers]
      .map(([match, response]) => ({ match, response }))
      .sort((a, b) => b.match.length - a.match.length);
  return {
    async complete(request) {
      const response = await inner.complete(request);
      answers.set(request.prompt, structuredClone(response));
      return response;
    },
    recorded,
    save(file) {
      writeFileSync(file, `${JSON.stringify({ responses: recorded() }, null, 2)}\n`);
    },
  };
}
