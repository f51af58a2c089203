/**
 * Yes/no arguments said in words: a boolean argument whose name is two words or more
 * (`legal_hold`, `notify_customer`) is true where the request says it ("keep a legal hold copy",
 * "with legal hold", "legal hold on", "a copy retained under legal hold") and false where it says
 * it under a negation ("no legal hold", "without a legal hold", "don't keep a legal hold", "no
 * legal hold needed", "legal hold = no"). The phrase is cut out, so it is never read as an action; the argument takes
 * the value in every step whose tool has it (fill-args.ts), read back under "Assumed". A phrase
 * said both ways, or one no step takes, is asked about.
 * A one-word boolean ("active") is left alone: the word says too many other things.
 */
import type { RequestContext, RequestText, YesNoSaid } from './request-context.ts';
import { cutOut } from './request-context.ts';

const NEGATION = `(?:no|not|without|never|don'?t|dont|do not|doesn'?t|shouldn'?t)`;
const LEAD = String.raw`(?:(?:keep|keeping|with|put|place|placing|set|apply|add|and|a|an|the|on|under|under a)\s+){0,3}`;
/** A value said after the name: "legal hold = no", "legal hold: false", "legal hold is off". */
const SAID_AS = String.raw`(?:\s*(?:=|:|\bis\b|\bset to\b)?\s*\b(no|false|off|none|yes|true)\b)?`;
const TAIL = String.raw`(?:\s+(?:copy|on|flag|enabled|set|applied|needed|necessary|required|please|pls))?`;

/** The yes/no arguments the text says, by name, into `ctx.yesNo`; their phrases cut out. */
export function readYesNo(buf: RequestText, ctx: RequestContext): void {
  const out = ctx.yesNo;
  const names = new Set<string>();
  // A yes/no a tool fixes (`active: const true`), said the other way, is something no tool does.
  const fixed = new Map<string, boolean>();
  for (const t of ctx.tools)
    for (const [n, s] of Object.entries(
      (t.args.properties ?? {}) as Record<string, { type?: unknown; const?: unknown }>,
    )) {
      if (typeof s?.const === 'boolean' && !/_id$/.test(n)) fixed.set(n, s.const);
      else if (s?.type === 'boolean' && s.const === undefined && n.split('_').length >= 2 && !/_id$/.test(n))
        names.add(n);
    }
  for (const [n, value] of fixed) {
    const said = new RegExp(String.raw`\b${n.split('_').join(String.raw`[\s_-]+`)}${SAID_AS}`, 'g');
    for (const m of [...buf.text.matchAll(said)]) {
      if (m[1] === undefined) continue;
      if (/^(?:no|false|off|none)$/.test(m[1]) === value)
        ctx.questions.push({
          about: `args: ${n}`,
          question: `The request says "${m[0].trim()}", but ${n} is always ${value} where a tool takes it: no tool of the catalog does that. What should happen instead?`,
        });
      cutOut(buf, m);
    }
  }
  for (const n of [...names].sort()) {
    const phrase = n.split('_').join(String.raw`[\s_-]+`);
    // A tool whose description keeps a copy for the argument ("keeping a copy only for legal hold"):
    // "keep a copy for legal" says it too.
    const copy = copyPhrase(n, ctx);
    const re = new RegExp(
      String.raw`\b(${NEGATION}\s+(?:[a-z']+\s+){0,2})?(?:${LEAD}${phrase}${SAID_AS}${TAIL}${copy})\b`,
      'g',
    );
    for (const m of [...buf.text.matchAll(re)]) {
      // ("legal hold = no", "legal hold: off": the value said after it; "no legal hold = yes" stays no.)
      const saidNo = m[2] !== undefined && /^(?:no|false|off|none)$/.test(m[2]);
      const said: YesNoSaid = { value: (m[1] === undefined) !== saidNo, said: m[0].trim() };
      const before = out.get(n);
      out.set(n, before === undefined || (before !== 'both' && before.value === said.value) ? said : 'both');
      cutOut(buf, m);
    }
  }
  for (const [n, v] of out)
    if (v === 'both')
      ctx.questions.push({
        about: `args: ${n}`,
        question: `The request says ${n.replace(/_/g, ' ')} both ways. Should ${n} be true or false?`,
        candidates: ['true', 'false'],
      });
}

/**
 * "keep a copy for legal", "retain a copy for the hold": the words a tool's description gives the
 * argument with a copy ("keeping a copy only for legal hold"), with one word of its name; none else.
 */
function copyPhrase(n: string, ctx: RequestContext): string {
  const words = n.split('_');
  const described = ctx.tools.some(
    (t) =>
      n in ((t.args.properties ?? {}) as object) &&
      new RegExp(String.raw`\bcopy\b[a-z\s]{0,20}\b${words.join(String.raw`\s+`)}\b`, 'i').test(
        t.description,
      ),
  );
  if (!described) return '';
  // ("for legal hold": the whole name before one word of it.)
  const what = String.raw`(?:for|under)\s+(?:the\s+|a\s+)?(?:${words.join(String.raw`\s+`)}|${words.join('|')})`;
  // ("a copy retained under legal hold": the same said in the passive.)
  return String.raw`|(?:keep|keeping|retain|retaining|save|saving|hold|holding)\s+(?:a\s+|the\s+|one\s+)?copy\s+${what}|(?:a\s+|the\s+|one\s+)?copy\s+(?:kept|retained|saved|held)\s+${what}(?:\s+[a-z]+)?`;
}

/** A yes/no the request said that no step of the draft takes is asked about, never dropped. */
export function askUnusedYesNo(stepArgs: readonly Record<string, unknown>[], ctx: RequestContext): void {
  for (const [n, v] of ctx.yesNo)
    if (v !== 'both' && !stepArgs.some((a) => n in a))
      ctx.questions.push({
        about: `args: ${n}`,
        question: `The request says "${v.said}", but no step of the draft takes ${n}. Which action should it go with?`,
      });
}
