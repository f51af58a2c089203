/**
 * Steps a draft gates by a test the words say only after them: "notify the warehouse. if the reason
 * is damaged, also send a survey" drafted with the trigger `when: payload.reason == "damaged"` tells
 * the warehouse of damaged returns only, which nobody asked. A test said after a step ("if X",
 * "unless X", "only if X") guards the steps said with it: the actions after it in its sentence
 * ("..., and if X, send a survey"), or, with none, the actions of its own sentence ("send a survey
 * if X", "reply and refund it, if X"); a step said before it otherwise runs regardless of it.
 *
 * Reads the request on its own (independent of the grammar, so that any compiler's misreading is
 * caught): a step is said where the words of its tool (its name's words and its description's
 * verbs) are, and said before a test when every one of them is before what the test guards; a
 * gate (the trigger's `when`, which gates every step, or a step's own `if`) is the test's when it
 * holds one of the test's words: a value it compares with, or a number. Pure.
 */
import { toolSteps } from '../spec/flow-steps.ts';
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import type { DraftCatalog } from './compiled-request.ts';
import { toolWords } from './grammar/tool-words.ts';
import { lemmas } from './request-words.ts';

/** A test said after a step, and the steps the draft gates by it though they were said before it. */
export interface LaterTest {
  /** The test as the request says it ("if the reason is damaged"). */
  readonly said: string;
  readonly steps: readonly string[];
}

/** A test's words: "if", "unless", "only if", "except if/when", to the end of its clause. */
const TEST = /\b(?:only\s+)?(?:if|unless|except\s+(?:if|when))\s+(?!not\b|so\b)([^.;!?,]*)/g;

/** The words of a condition a test may share: the values it compares with, its numbers. */
function gateWords(when: string): string[] {
  const out = new Set<string>();
  for (const m of when.matchAll(/"([^"]*)"/g)) out.add(m[1]!.toLowerCase());
  for (const m of when.matchAll(/(?<![a-z_.])([0-9]+(?:\.[0-9]+)?)\b/g)) out.add(m[1]!);
  return [...out].filter((w) => w !== '');
}

/** Each word of `text` with where it starts, its lemmas. */
function wordsAt(text: string): { at: number; lemmas: string[] }[] {
  return [...text.matchAll(/[a-z0-9]+/g)].map((m) => ({ at: m.index, lemmas: lemmas(m[0]) }));
}

/**
 * Where each step of the draft is said: the words of its tool's verbs (its name's first word, its
 * description's verbs), or, when none is in the request, its name's words outside the tests.
 */
function stepsSaid(
  spec: WorkflowSpec,
  text: string,
  catalog: DraftCatalog,
  inTest: (at: number) => boolean,
): { name: string; if?: string; at: number[] }[] {
  const words = wordsAt(text);
  const byName = new Map(catalog.tools.map((t) => [t.name, t]));
  return toolSteps(spec).flatMap((s) => {
    const tool = byName.get(s.tool);
    if (!tool) return [];
    const { name, first } = toolWords(tool);
    const verbs = new Set([...first, ...lemmas(tool.name.split(/[^a-zA-Z0-9]+/)[0] ?? '')]);
    const byVerb = words.filter((w) => w.lemmas.some((l) => verbs.has(l))).map((w) => w.at);
    const at = byVerb.length
      ? byVerb
      : words.filter((w) => !inTest(w.at) && w.lemmas.some((l) => name.has(l))).map((w) => w.at);
    return at.length ? [{ name: s.name, ...(s.if !== undefined ? { if: s.if } : {}), at }] : [];
  });
}

export function laterTests(spec: WorkflowSpec, request: string, catalog: DraftCatalog): LaterTest[] {
  const blank = (q: string) => ' '.repeat(q.length);
  // Texts a step sends are no test ("reply 'if you need help, ...'"), nor is an aside in brackets.
  const text = request
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/"[^"]*"/g, blank)
    .replace(/\([^()]*\)/g, blank);
  const tests = [...text.matchAll(TEST)];
  const inTest = (at: number) => tests.some((m) => at >= m.index && at < m.index + m[0].length);
  const steps = stepsSaid(spec, text, catalog, inTest);
  const trigger = spec.triggers.map((t) => t.when).filter((w): w is string => w !== undefined);
  const out: LaterTest[] = [];
  for (const m of tests) {
    const said = m[0].trim();
    const testWords = new Set(wordsAt(m[1]!).flatMap((w) => w.lemmas));
    const ofTest = (when: string) =>
      gateWords(when).some((g) => g.split(/\s+/).every((p) => testWords.has(p)));
    const sentence = /[.;!?]/.exec(text.slice(m.index));
    const sentenceEnd = sentence ? m.index + sentence.index : text.length;
    const sentenceStart = Math.max(...['.', ';', '!', '?'].map((c) => text.lastIndexOf(c, m.index)), -1) + 1;
    // Actions said after it in its sentence ("if X, A"): it guards them, and none before it.
    const guardsAfter = steps.some((s) => s.at.some((a) => a > m.index && a < sentenceEnd));
    // None ("A if X", "reply and refund it, if X"): it guards the actions of its own sentence.
    const start = guardsAfter ? m.index : sentenceStart;
    const gated = steps
      .filter((s) => Math.max(...s.at) < start)
      .filter((s) => trigger.some(ofTest) || (s.if !== undefined && ofTest(s.if)))
      .map((s) => s.name);
    if (gated.length > 0) out.push({ said, steps: gated });
  }
  return out;
}
