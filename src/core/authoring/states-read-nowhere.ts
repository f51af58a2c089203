/**
 * A state said of the events that the draft reads nowhere: "reimburse approved expenses" drafted on
 * expense.submitted, with no test that the expense is approved, pays every expense submitted. A
 * participle right before the trigger event's noun ("approved expenses", "closed tickets") is read
 * where it is the event's own verb ("submitted expenses" on expense.submitted, "reported posts" on
 * post.reported) or a test names it (`steps.match.output.matched == true` for "matched invoices");
 * else it is asked about. Read on the request as written and the draft as drafted, so it holds
 * whatever compiled it. Pure.
 */
import type { WorkflowSpec } from '../spec/workflow-spec.ts';
import { testsText } from './draft-tests.ts';
import { oneSlipApart } from './grammar/one-slip-apart.ts';
import { requestOwnWords } from './request-own-words.ts';
import { lemmas } from './request-words.ts';

/** Each "<participle> <event noun>" of `request` that `spec` neither starts on nor tests. */
export function statesReadNowhere(request: string, spec: WorkflowSpec): string[] {
  const t = requestOwnWords(request, spec);
  const tests = testsText(spec);
  const out: string[] = [];
  for (const tr of spec.triggers) {
    const dot = tr.event.lastIndexOf('.');
    const nouns = tr.event
      .slice(0, dot)
      .split(/[._-]/)
      .filter((n) => n.length > 2);
    const verb = lemmas(tr.event.slice(dot + 1));
    if (nouns.length === 0) continue;
    const re = new RegExp(String.raw`\b([a-z]{3,}ed)\s+(?:${nouns.map((n) => `${n}s?`).join('|')})\b`, 'g');
    for (const m of t.matchAll(re)) {
      const said = lemmas(m[1]!);
      // The stem the tests would name: "approved" -> "approv", "matched" -> "match".
      const stem = m[1]!.replace(/e?d$/, '');
      // (A test of the value typed with a slip reads it too: "contaminted" for "contaminated".)
      const slip = (tests.match(/[a-z]+/g) ?? []).some((w) => oneSlipApart(w, m[1]!));
      if (said.some((l) => verb.includes(l)) || tests.includes(stem) || slip) continue;
      out.push(m[0]);
    }
  }
  return [...new Set(out)];
}
