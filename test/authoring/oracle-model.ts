/**
 * A stand-in model for measuring the measure: it answers each corpus request with the case's own
 * expected spec (or, for a must-ask case, with its `why` as a question), in the answer schema the
 * model-backed compiler asks for. What it answers is the right answer by construction, so a score
 * below the full mark is the checks' doing, never the model's.
 */
import type { ModelProvider, ModelRequest } from '../../src/ports/index.ts';
import type { CorpusFile, ExpectedStep } from './draft-corpus.ts';

export function oracleModel(files: readonly CorpusFile[]): ModelProvider & { asked: ModelRequest[] } {
  const asked: ModelRequest[] = [];
  const cases = files.flatMap((f) => f.cases);
  return {
    asked,
    async complete(request) {
      asked.push(request);
      const line = request.prompt.slice(request.prompt.lastIndexOf('\nRequest: ') + '\nRequest: '.length);
      const c = cases.find((x) => x.request === line);
      if (!c) throw new Error(`oracle: no case for ${JSON.stringify(line.slice(0, 60))}`);
      if (c.ask || !c.expect)
        return {
          triggers: [],
          steps: [],
          limits: { maxSteps: 1, maxCostUsd: 0 },
          questions: [c.why ?? 'Which?'],
        };
      let n = 0;
      const named = (s: ExpectedStep): unknown =>
        'choose' in s
          ? {
              name: `c${++n}`,
              choose: s.choose.map((b) => ({ when: b.when, steps: b.steps.map(named) })),
              ...(s.else ? { else: s.else.map(named) } : {}),
            }
          : { name: (s as { name?: string }).name ?? `s${++n}`, ...s };
      return {
        triggers: c.expect.triggers,
        steps: c.expect.steps.map(named),
        limits: c.expect.limits,
        questions: [],
      };
    },
  };
}
