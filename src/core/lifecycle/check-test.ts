/**
 * A test's expectations held against the decisions of its run: each expectation the test gives is
 * one line of the verdict, with what was expected and what the run did. First of all, whether the
 * version starts on the test's event: a test expects it to (unless it says `starts: false`), and
 * where it does not, there is no run to hold anything else against. Pure.
 */
import { canonicalize } from '../canonical/index.ts';
import type { TestExpectations } from '../spec/index.ts';
import type { RunDecisions } from './run-decisions.ts';

export interface ExpectationResult {
  /** `starts`, `status`, `steps`, `refusal`, `approvals`, or `args.<step>.<field>`. */
  readonly expectation: string;
  readonly ok: boolean;
  readonly expected: unknown;
  readonly actual: unknown;
}

export interface TestVerdict {
  readonly passed: boolean;
  readonly results: readonly ExpectationResult[];
}

const equal = (a: unknown, b: unknown) => canonicalize(a ?? null) === canonicalize(b ?? null);

/**
 * `starts`: whether one of the version's triggers matches the test's event; `run`: the decisions
 * of the test's run, which exists only where the version starts and the test expects it to.
 */
export function checkTest(
  expect: TestExpectations,
  outcome: { readonly starts: boolean; readonly run?: RunDecisions },
): TestVerdict {
  const results: ExpectationResult[] = [];
  const add = (expectation: string, expected: unknown, actual: unknown) =>
    results.push({ expectation, ok: equal(expected, actual), expected, actual });
  const starts = expect.starts ?? true;
  // Said or not, whether the version starts is the first expectation: a run it would never start proves nothing.
  if (expect.starts !== undefined || !outcome.starts) add('starts', starts, outcome.starts);
  const run = outcome.run;
  if (!starts || !outcome.starts || !run)
    return { passed: results.every((r) => r.ok) && (!starts || run !== undefined), results };
  if (expect.status !== undefined) add('status', expect.status, run.status);
  if (expect.steps !== undefined)
    add(
      'steps',
      expect.steps,
      run.steps.map((s) => s.step),
    );
  if (expect.refusal !== undefined) {
    const refused = run.steps.find((s) => s.outcome === 'refused');
    add('refusal', expect.refusal, refused?.code ?? run.finished?.code ?? null);
  }
  if (expect.approvals !== undefined)
    add(
      'approvals',
      expect.approvals,
      run.steps.filter((s) => s.approval).map((s) => s.step),
    );
  for (const [step, fields] of Object.entries(expect.args ?? {})) {
    const d = run.steps.find((s) => s.step === step);
    for (const [f, want] of Object.entries(fields))
      add(`args.${step}.${f}`, want, d?.args ? (d.args as Record<string, unknown>)[f] : undefined);
  }
  return { passed: results.every((r) => r.ok), results };
}
