/**
 * A word only another money-moving tool is described with, in a draft that moves money: "credit
 * their card $50", drafted as `issue_credit` (a credit on the guest's profile), says "card", which
 * only `refund_guest` ("Refunds money to the card the guest paid with") is described with: the
 * money went another way than the words. The coverage check (read-coverage.ts) asks about such a
 * word as unread; this asks which tool is meant, naming the tools that say it, so the person can
 * pick one. A word any step of the draft (its tool, its arguments' values) or its trigger event
 * names is the draft's own, and the grammar's words and generic verbs say no tool. Pure.
 */
import type { EventShape } from '../compiled-request.ts';
import { ACTION_GROUPS, FILLER, GENERIC_VERBS, lemmas, wordsOf } from '../request-words.ts';
import { GRAMMAR_WORDS } from './read-coverage.ts';
import { type DraftStep, listOr, type RequestContext } from './request-context.ts';
import { toolWords } from './tool-words.ts';

/** Asks about each word of `text` only undrafted money-moving tools say, in a draft that moves money. */
export function askOtherToolsWords(
  text: string,
  steps: readonly DraftStep[],
  event: string | undefined,
  ctx: RequestContext,
): void {
  const moves = (t: DraftStep['tool']) => t.cost?.fromArg !== undefined;
  if (!steps.some((s) => moves(s.tool))) return;
  const drafted = new Set(steps.map((s) => s.tool.name));
  const own = new Set<string>();
  for (const s of steps) {
    for (const w of toolWords(s.tool).all) own.add(w);
    for (const w of wordsOf(JSON.stringify(Object.values(s.step.args)))) own.add(w);
  }
  const shape: EventShape | undefined = ctx.events?.find((e) => e.type === event);
  for (const w of wordsOf([shape?.type ?? '', ...(shape?.payload ?? [])].join(' '))) own.add(w);
  const others = ctx.tools.filter((t) => !drafted.has(t.name) && moves(t));
  const verbs = new Set([...ACTION_GROUPS.flat(), ...GENERIC_VERBS]);
  const asked = new Set<string>();
  for (const word of text
    .toLowerCase()
    .replace(/"q[0-9]+"/g, ' ')
    .match(/[a-z]{3,}/g) ?? []) {
    if (asked.has(word) || FILLER.has(word) || GRAMMAR_WORDS.has(word) || verbs.has(word)) continue;
    const forms = lemmas(word);
    if (forms.some((l) => own.has(l))) continue;
    const saying = others.filter((t) => forms.some((l) => toolWords(t).all.has(l)));
    if (saying.length === 0) continue;
    asked.add(word);
    ctx.questions.push({
      about: 'steps',
      question: `"${word}" is said of ${listOr(saying.map((t) => t.name))}, which the draft does not call: it calls ${listOr([...drafted])}. Which tool is meant?`,
      candidates: [...new Set([...drafted, ...saying.map((t) => t.name)])],
    });
  }
}
