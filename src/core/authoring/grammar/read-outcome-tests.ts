/**
 * A test on a read's yes/no said by its verb: "if it doesn't match, email the vendor ...", "if the
 * invoice doesnt match the PO email the vendor: ... if it does match, pay it". A read tool that
 * says whether something happens returns a yes/no named by the verb's participle (`matched`,
 * implied-reads.ts); the verb said after "if <it | they | the X>", negated or not ("doesn't",
 * "does not", "didn't", "fails to", "can't"), tests it: `steps.<read>.output.matched == false`.
 * What follows it is the steps it guards, to the end of the sentence; the same verb said the other
 * way round in the next sentence ("if it does match, pay it") or "otherwise" is the else. The object
 * of the verb may be said with words the read tool's name, description or arguments use ("the PO",
 * "the purchase order"). Exactly one read tool must return that yes/no; several: a question. The
 * read step is added first (implied-reads.ts), Assumed. Pure; cuts what it read.
 */
import { outputsOf, participle } from './implied-reads.ts';
import type { Otherwise } from './read-otherwise.ts';
import { impliedTest } from './read-step-tests.ts';
import { cutOut, listOr, type RequestContext, type RequestText } from './request-context.ts';
import { isNounOf } from './trigger-words.ts';

const NOT = String.raw`(?:doesn't|doesnt|does not|don't|dont|do not|didn't|didnt|did not|fails? to|can't|cant|cannot|won't|wont)`;
const WHO = String.raw`(?:it|they|the [a-z]+)`;
const END = '[^.;!?]*';

/** The read tools returning a yes/no named by `verb`'s participle, with the field. */
function readsFor(verb: string, ctx: RequestContext): { read: string; field: string; words: string[] }[] {
  const forms = new Set([verb, participle(`${verb}s`), participle(`${verb}es`), participle(verb)]);
  const out: { read: string; field: string; words: string[] }[] = [];
  for (const t of ctx.tools) {
    if (t.effect !== 'read' || t.cost?.fromArg !== undefined) continue;
    const f = outputsOf(t).fields.find((x) => x.yesNo && forms.has(x.name));
    if (!f) continue;
    const props = Object.keys((t.args.properties as Record<string, unknown> | undefined) ?? {});
    const words = `${t.name} ${t.description} ${props.join(' ')}`
      .toLowerCase()
      .split(/[^a-z]+/)
      .filter((w) => w.length > 1);
    out.push({ read: t.name, field: f.name, words });
  }
  return out;
}

/** The read tools (one each) returning a yes/no named by a verb as said ("match", "matches", "matched"). */
function readsForWord(word: string, ctx: RequestContext): ReturnType<typeof readsFor> {
  const stem = word.replace(/(?:es|s|ed)$/, '');
  return [word, stem, `${stem}e`]
    .flatMap((v) => readsFor(v, ctx))
    .filter((h, i, all) => all.findIndex((x) => x.read === h.read) === i);
}

/** The test on a read's yes/no the text says by its verb, with the steps it guards, cut out. */
export function readOutcomeTest(buf: RequestText, raw: string, ctx: RequestContext): Otherwise | undefined {
  const lead = new RegExp(
    String.raw`\b(?:only )?if\s+${WHO}\s+(?:(${NOT})\s+|does\s+|do\s+)?([a-z]+)\b`,
    'g',
  );
  for (const m of buf.text.matchAll(lead)) {
    const said = m[2]!.replace(/(?:es|s|ed)$/, '');
    const hits = readsForWord(m[2]!, ctx);
    if (hits.length === 0) continue;
    if (hits.length > 1) {
      ctx.questions.push({
        about: 'steps.if',
        question: `Which does "${m[0].trim()}" test: ${listOr(hits.map((h) => `${h.read}'s ${h.field}`))}?`,
      });
      return undefined;
    }
    const hit = hits[0]!;
    const negated = m[1] !== undefined;
    // The verb's object in the read's own words ("the po", "the purchase order"), then the steps.
    const vocab = [...new Set(hit.words)].join('|');
    const object = String.raw`(?:\s+(?:to|with|against|up with))?(?:\s+(?:the|its|their|our|a|an))?(?:\s+(?:${vocab}))*`;
    const verbForms = `(?:${said}|${m[2]!})(?:e?s|e?d)?`;
    const other = String.raw`[.;,]?\s*(?:(?:otherwise|else|if not)\b|(?:and )?if\s+${WHO}\s+(?:${negated ? '(?:does|do)\\s+' : `${NOT}\\s+`})?${verbForms}\b${object})`;
    const rest = new RegExp(
      String.raw`^${object}\s*,?\s*(?:then\s+)?(${END}?)(?:\s*${other}\s*,?\s*(?:just\s+)?(${END}))?(?=[.;!?]|$)`,
      'd',
    );
    const after = m.index + m[0].length;
    // The else may be said in the next sentence: read the two sentences as one.
    const tail = buf.text.slice(after);
    const r = rest.exec(tail.replace(/^([^.;!?]*)[.;](\s*(?:and )?if\s)/, '$1 $2'));
    if (!r?.indices) continue;
    const yes = r[1]!;
    if (!/[a-z]/.test(yes.replace(/"q[0-9]+"/g, '')) && !/"q[0-9]+"/.test(yes)) {
      // "check the PO and pay it if it matches": nothing after it and no else; it guards the
      // action said just before it in its sentence (none: not this reading).
      const sentence = buf.text
        .slice(0, m.index)
        .split(/[.;!?]/)
        .pop()!;
      if (r[2] !== undefined || !/[a-z]{2,}/.test(sentence.replace(/^\s*(?:when|whenever)\b[^,]*,/, '')))
        continue;
      return impliedTest(buf, raw, ctx, {
        at: m.index,
        end: after + r.indices[1]![0],
        when: `steps.__implied__${hit.read}__.output.${hit.field} == ${!negated}`,
        elseAt: undefined,
      });
    }
    return impliedTest(buf, raw, ctx, {
      at: m.index,
      end: after + r[0].length,
      when: `steps.__implied__${hit.read}__.output.${hit.field} == ${!negated}`,
      yes: r.indices[1]!.map((x) => x + after) as [number, number],
      elseAt: r.indices[2]?.[0] === undefined ? undefined : r.indices[2][0] + after,
    });
  }
  return readParticiple(buf, raw, ctx);
}

/**
 * "pay matched invoices", "approve unmatched invoices": the participle said before the event's
 * noun, after the action it guards in its sentence, tests the read's yes/no as "if it matched" does
 * ("un" turns it around); the test guards the steps of its sentence.
 */
function readParticiple(buf: RequestText, raw: string, ctx: RequestContext): Otherwise | undefined {
  for (const m of buf.text.matchAll(/\b(un|non-?)?([a-z]+ed) ([a-z]+)\b/g)) {
    if (!(ctx.events ?? []).some((e) => isNounOf(m[3]!, e))) continue;
    const hits = readsForWord(m[2]!, ctx);
    if (hits.length !== 1) continue;
    // The action it guards is said before it in its sentence.
    const start = buf.text.slice(0, m.index).search(/[^.;!?]*$/);
    if (!/[a-z]{2,}/.test(buf.text.slice(start, m.index).replace(/^\s*(?:when|whenever)\b[^,]*,/, '')))
      continue;
    const stop = m.index + (/[.;!?]/.exec(buf.text.slice(m.index))?.index ?? buf.text.length - m.index);
    const participle = `${m[1] ?? ''}${m[2]}`;
    cutOut(buf, { index: m.index, 0: participle });
    return impliedTest(buf, raw, ctx, {
      at: start,
      end: stop,
      when: `steps.__implied__${hits[0]!.read}__.output.${hits[0]!.field} == ${m[1] === undefined}`,
      yes: [start, stop],
      elseAt: undefined,
      said: `${participle} ${m[3]}`,
    });
  }
  return undefined;
}
