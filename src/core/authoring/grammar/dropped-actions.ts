/**
 * An action said inside another step's clause that a different tool of the catalog does, and no step
 * of the draft does ("refund it close the ticket", "approve it plus tag it"): the clause was mapped to
 * its first verb's tool and the rest of its words would be dropped. A question, never dropped, in any
 * draft (the coverage check, read-coverage.ts, sees only words it does not know, and "close" is a
 * word the catalog knows). Not asked for a word among the step's own values ("tag it refund"), nor
 * after a negation ("... and don't close it": the ban readers' words).
 */
import type { ToolDescriptor } from '../../tools/tool-descriptor.ts';
import { ACTION_GROUPS, groupOf, lemmas } from '../request-words.ts';
import type { DraftStep, RequestContext } from './request-context.ts';
import { toolWords } from './tool-words.ts';

/** The one tool of the catalog an action verb names by its group ("close": close_ticket). */
function toolOfVerb(w: string, ctx: RequestContext): ToolDescriptor | undefined {
  const group = lemmas(w)
    .map((l) => groupOf(ACTION_GROUPS, l))
    .find((g) => g !== undefined);
  if (group === undefined) return undefined;
  const tools = ctx.tools.filter((t) =>
    group.some((g) => toolWords(t).name.has(g) || toolWords(t).first.has(g)),
  );
  return tools.length === 1 ? tools[0] : undefined;
}

const OBJECT = /^(?:it|them|em|him|her|the|a|an|their|this|that|these|those|all|each|every)$/;
const NOUN_BEFORE = /^(?:the|a|an|their|its|this|that|status|any|no|of|to|for)$/;
const NEGATED = /\b(?:no|not|never|don'?t|dont|do not|without|instead of|rather than|nor)\s+(?:[a-z]+\s+)?$/;

export function askDroppedActions(steps: readonly DraftStep[], ctx: RequestContext): void {
  const done = new Set(steps.map((s) => s.tool.name));
  const asked = new Set<string>();
  for (const s of steps) {
    const said = s.said?.replace(/"q[0-9]+"/g, ' ');
    if (!said) continue;
    const values = JSON.stringify(s.step.args).toLowerCase();
    const words = [...said.matchAll(/[a-z][a-z'-]*/g)];
    for (let i = 1; i < words.length; i++) {
      const m = words[i]!;
      // Said as a verb with its object ("close the ticket", "tag it"), not as a noun or an
      // adjective ("the status page", "approved invoices").
      if (!OBJECT.test(words[i + 1]?.[0] ?? '') || NOUN_BEFORE.test(words[i - 1]![0])) continue;
      const tool = toolOfVerb(m[0], ctx);
      if (!tool || done.has(tool.name) || asked.has(tool.name) || values.includes(m[0])) continue;
      if (NEGATED.test(said.slice(0, m.index))) continue;
      asked.add(tool.name);
      ctx.questions.push({
        about: `steps: ${s.step.name}`,
        question: `"${said.trim().replace(/\s+/g, ' ')}" says "${m[0]}" (${tool.name}), but no step of the draft does it. Should ${tool.name} be a step of its own? Say each action apart ("..., then ${m[0]} ...").`,
        candidates: [tool.name],
      });
    }
  }
}
