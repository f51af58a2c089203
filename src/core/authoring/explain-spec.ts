/**
 * A workflow spec read back in plain language: what starts it (the trigger and its condition in
 * words), its steps in order, its limits, and its risks (destructive tools, what waits for a
 * person, what moves money against the spend cap). For `keel explain`, `keel draft` and review.
 *
 * Pure and deterministic: the same spec and tool catalog always read back the same text. It reads
 * only the descriptors it is given (never a handler), and never judges whether the spec is valid.
 */
import { usdToCents } from '../money.ts';
import type { Policy } from '../policy/index.ts';

import { isPlainChain, type StepSpec, toolSteps } from '../spec/flow-steps.ts';
import { parseCondition } from '../spec/parse-condition.ts';
import type { ScheduleSpec } from '../spec/schedule-trigger.ts';
import type { TriggerSpec, WorkflowSpec } from '../spec/workflow-spec.ts';
import type { ToolDescriptor } from '../tools/tool-descriptor.ts';
import { approvalDeadlineWords } from './approval-words.ts';
import { argWords } from './arg-words.ts';
import { conditionWords, dollars } from './condition-words.ts';
import { flowLines, flowSummary } from './explain-flow.ts';
import { readPolicy } from './explain-policy.ts';

export interface ReadBack {
  /** One line: "When a refund is requested, if its currency is "USD": 1. reply ...; 2. refund ...". */
  readonly summary: string;
  /** What starts a run, one line per trigger. */
  readonly trigger: readonly string[];
  /** The steps in order, numbered from 1. */
  readonly steps: readonly string[];
  readonly limits: readonly string[];
  readonly risks: readonly string[];
  /** What the tenant's policy does with each step's calls; empty when no policy was given. */
  readonly policy: readonly string[];
  /** A draft's: what its compiler assumed (an event chosen, words read as text), for confirmation. */
  readonly assumed?: readonly string[];
  /** All of it as one text, the way `keel explain` prints it. */
  readonly text: string;
}

/** The tenant's policy, read against the steps when given (readPolicy). */
export interface ExplainPolicy {
  readonly policy: Policy;
  readonly tenant: string;
}

/**
 * The read-back of `spec` against `tools` (a step whose tool is not among them says so) and, when
 * given, the tenant's policy.
 */
export function explainSpec(
  spec: WorkflowSpec,
  tools: readonly ToolDescriptor[],
  governed?: ExplainPolicy,
): ReadBack {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const calls = toolSteps(spec);
  const trigger =
    spec.triggers.length === 0
      ? ['No trigger: it runs only when started directly (keel run).']
      : spec.triggers.map((t) => `${capitalize(triggerWordsOf(t))}.`);
  const toolLine = (s: StepSpec, n: string) => {
    const tool = byName.get(s.tool);
    const what = tool
      ? lowerFirst(firstSentence(tool.description)).replace(/[.!?]$/, '')
      : 'not in the tool catalog';
    const args = Object.keys(s.args)
      .sort()
      .map((k) => `${k} = ${argWords(s.args[k])}`);
    return `${n}. ${s.name} (${s.tool}): ${what}${args.length ? `; with ${args.join(', ')}` : ''}`;
  };
  const plain = isPlainChain(spec);
  const steps = plain
    ? calls.map((s, i) => `${toolLine(s, String(i + 1))}.`)
    : flowLines(spec.steps, toolLine);
  const cap = spec.limits.maxCostUsd;
  const limits = [
    `At most ${spec.limits.maxSteps} step${spec.limits.maxSteps === 1 ? '' : 's'} a run.`,
    cap === 0
      ? 'Spends nothing: a call to any tool that costs money is refused (spend cap $0).'
      : `Spends at most ${dollars(usdToCents(cap))} a run (spend cap).`,
  ];
  const risks: string[] = [];
  for (const s of calls) {
    const tool = byName.get(s.tool);
    if (!tool) {
      risks.push(
        `${s.name} calls ${s.tool}, which is not in the tool catalog: the spec cannot be published.`,
      );
      continue;
    }
    if (tool.destructive)
      risks.push(
        `${s.name} (${s.tool}) is destructive: it waits for a person's approval unless the version is AUTONOMOUS.`,
      );
    if (tool.approval === 'always')
      risks.push(`${s.name} (${s.tool}) is an approval gate: it always waits for a person's approval.`);
    const from = tool.cost?.fromArg;
    if (from !== undefined) {
      const source = s.args[from] === undefined ? from : argWords(s.args[from]);
      risks.push(
        cap === 0
          ? `${s.name} (${s.tool}) moves money (${from} = ${source}): with a spend cap of $0 every call is refused before ${s.tool} is called.`
          : `${s.name} (${s.tool}) moves money (${from} = ${source}): a call that would take the run over ${dollars(usdToCents(cap))} is refused before ${s.tool} is called.`,
      );
    }
    const fixed = tool.cost?.fixedUsd ?? 0;
    if (fixed > 0)
      risks.push(
        `${s.name} (${s.tool}) costs ${dollars(usdToCents(fixed))} a call, counted against the spend cap.`,
      );
    if (tool.effect === 'external' && !tool.destructive)
      risks.push(`${s.name} (${s.tool}) acts outside Keel (external effect).`);
    if (s.approval) {
      // Whether a policy asks is the policy's (below); without one, only the tool's flags make it wait.
      const asks = tool.destructive || tool.approval === 'always' || governed !== undefined;
      risks.push(
        asks
          ? `${s.name} (${s.tool}): ${approvalDeadlineWords(s.approval)}.`
          : `${s.name} (${s.tool}) declares an approval deadline (${approvalDeadlineWords(s.approval)}), but nothing makes it wait for a person: it never applies.`,
      );
    }
  }
  const policy = governed ? readPolicy(spec, byName, governed.policy, governed.tenant) : undefined;
  if (policy) risks.push(...policy.risks);
  if (risks.length === 0) risks.push('None: no step is destructive, needs approval or moves money.');
  const header = `${spec.id} v${spec.version} (${spec.status})${spec.description ? `: ${spec.description}` : ''}`;
  const starts =
    spec.triggers.length === 0
      ? 'When started directly'
      : capitalize(spec.triggers.map(triggerWordsOf).join(', or '));
  const doing = (s: StepSpec) => {
    const tool = byName.get(s.tool);
    return tool ? lowerFirst(firstSentence(tool.description)).replace(/[.!?]$/, '') : s.tool;
  };
  const summary = plain
    ? `${starts}: ${calls.map((s, i) => `${i + 1}. ${doing(s)}`).join('; ')}.`
    : `${starts}: ${flowSummary(spec.steps, doing)}.`;
  const text = [
    header,
    '',
    'Starts:',
    ...trigger.map((l) => `  ${l}`),
    'Steps:',
    ...steps.map((l) => `  ${l}`),
    'Limits:',
    ...limits.map((l) => `  ${l}`),
    ...(policy ? ['Policy:', ...policy.lines.map((l) => `  ${l}`)] : []),
    'Risks:',
    ...risks.map((l) => `  - ${l}`),
  ].join('\n');
  return { summary, trigger, steps, limits, risks, policy: policy?.lines ?? [], text };
}

/** "when a refund is requested, if its currency is "USD"". */
/** A trigger in words: its event (and condition), or its schedule. */
function triggerWordsOf(t: TriggerSpec): string {
  return t.schedule ? scheduleWords(t.schedule) : triggerWords(t.event, t.when);
}

const MISSED_WORDS = {
  once: 'one catch-up run for any fires missed while no scheduler ran',
  each: 'a catch-up run for each fire missed while no scheduler ran (at most 100)',
  skip: 'fires missed while no scheduler ran are skipped',
} as const;

/** `{ cron: "0 9 * * 1-5", timezone: Europe/Berlin, missed: once }` in words. */
export function scheduleWords(s: ScheduleSpec): string {
  return `on the schedule "${s.cron}" (minute hour day-of-month month day-of-week) in ${s.timezone} time; ${MISSED_WORDS[s.missed]}`;
}

function triggerWords(event: string, when: string | undefined): string {
  const base = `when ${eventWords(event)}`;
  if (when === undefined) return base;
  let cond: string;
  try {
    cond = conditionWords(parseCondition(when));
  } catch {
    cond = `the condition ${JSON.stringify(when)} holds`;
  }
  return `${base}, if ${cond}`;
}

/** "a" or "an" by how the word sounds: "an order", "an update", but "a user", "a unit". */
function articleOf(word: string): 'a' | 'an' {
  return /^[aeio]/.test(word) || (/^u/.test(word) && !/^u(?:s|ni|ti|r)/.test(word)) ? 'an' : 'a';
}

/** Participles an event has rather than undergoes: "a payment has failed", not "is failed". */
const HAS_DONE = new Set([
  'failed',
  'expired',
  'succeeded',
  'arrived',
  'occurred',
  'happened',
  'lapsed',
  'bounced',
]);

/**
 * `refund.requested` -> "a refund is requested"; the words before the participle name the thing
 * too (`helpdesk.ticket_opened` and `helpdesk.ticket.opened` -> "a helpdesk ticket is opened",
 * `order.payment_failed` -> "an order payment has failed"); anything else -> "an event x.y arrives".
 */
export function eventWords(type: string): string {
  const m =
    /^([a-z][a-z0-9_-]*(?:\.[a-z][a-z0-9_-]*)*)\.(?:([a-z][a-z0-9]*(?:_[a-z][a-z0-9]*)*)_)?([a-z][a-z0-9]*ed)$/.exec(
      type,
    );
  if (!m) return `an event ${type} arrives`;
  const noun = [m[1]!, m[2] ?? ''].join(' ').replace(/[._-]/g, ' ').trim();
  const done = m[3]!;
  return `${articleOf(noun)} ${noun} ${HAS_DONE.has(done) ? 'has' : 'is'} ${done}`;
}

function firstSentence(description: string): string {
  const d = description.trim();
  if (d === '') return 'no description';
  const m = /^(.*?[.!?])(\s|$)/.exec(d);
  return m ? m[1]! : d;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}
