/**
 * Policy documents (YAML or JSON) -> a validated `Policy`, with every problem located at its field.
 *
 *   default: deny                      # optional; deny unless `allow`
 *   rules:
 *     - id: big-refunds
 *       match: { tool: [issue_refund, payments.*], destructive: true, effect: [external] }
 *       when: args.amount_usd > 20     # the condition language of triggers, over policy facts
 *       outcome: require_approval      # allow | deny | require_approval
 *       channel: slack                 # require_approval only (default cli)
 *       reason: refunds over $20 need a person
 *
 * Owns validation and error wording (`policy.yaml:7:13: rules[0].when: ...`). Reuses the spec's
 * YAML bridge and condition parser; never reads files, never evaluates anything.
 */
import { ErrorCode, isKeelError, KeelError } from '../errors.ts';
import {
  isWorkflowStatus,
  parseConditionIn,
  parseYamlWith,
  type SpecProblem,
  WORKFLOW_STATUSES,
} from '../spec/index.ts';
import {
  checkKeys,
  expectMapping,
  field,
  isMapping,
  type Obj,
  readString,
  SpecChecker,
} from '../spec/spec-checker.ts';
import { describeValue, type FieldPath, formatProblem } from '../spec/spec-problem.ts';
import { isToolPattern, TOOL_EFFECTS, type ToolEffect } from '../tools/index.ts';
import {
  POLICY_OUTCOMES,
  type Policy,
  type PolicyOutcome,
  type PolicyRule,
  policyHash,
  type RuleMatch,
} from './policy.ts';
import { POLICY_CONDITION_SCOPE } from './policy-facts.ts';

const RULE_ID = /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}$/;
const WORD = /^[^\s]{1,200}$/;
const TOP_KEYS = ['default', 'description', 'rules'] as const;
const RULE_KEYS = ['id', 'description', 'match', 'when', 'outcome', 'channel', 'reason'] as const;
const MATCH_KEYS = ['tool', 'destructive', 'effect', 'scopes', 'status', 'tenant'] as const;

/** Parses policy text; throws `policy_invalid` carrying every problem (file:line:column, field, message). */
export function parsePolicy(text: string, file: string): Policy {
  try {
    return parseYamlWith(text, file, buildPolicy);
  } catch (e) {
    if (isKeelError(e) && e.code === ErrorCode.specInvalid)
      throw policyInvalid(e.details.problems as SpecProblem[]);
    throw e;
  }
}

/** Validates an already-parsed value (a policy given as an object); problems carry no line numbers. */
export function policyFromValue(value: unknown, file = 'policy'): Policy {
  const c = new SpecChecker(file);
  const p = buildPolicy(c, value);
  if (p === undefined || c.problems.length > 0) throw policyInvalid(c.sorted());
  return p;
}

function policyInvalid(problems: readonly SpecProblem[]): KeelError {
  const first = problems[0];
  const more = problems.length > 1 ? ` (+${problems.length - 1} more)` : '';
  const head = first ? formatProblem(first) : 'invalid policy';
  return new KeelError(ErrorCode.policyInvalid, `${head}${more}`, { problems: [...problems] });
}

export function buildPolicy(c: SpecChecker, value: unknown): Policy | undefined {
  const doc = expectMapping(c, value, []);
  if (!doc) return undefined;
  checkKeys(c, doc, [], TOP_KEYS);
  const dflt = field(doc, 'default') ?? 'deny';
  if (dflt !== 'allow' && dflt !== 'deny')
    c.report(['default'], `expected allow or deny, got ${describeValue(dflt)}`);
  const rawRules = field(doc, 'rules') ?? [];
  const rules: PolicyRule[] = [];
  if (!Array.isArray(rawRules)) {
    c.report(['rules'], `expected a list of rules, got ${describeValue(rawRules)}`);
  } else {
    const seen = new Map<string, number>();
    rawRules.forEach((raw, i) => {
      const r = buildRule(c, raw, ['rules', i]);
      const id = isMapping(raw) ? raw.id : undefined;
      if (typeof id === 'string') {
        const earlier = seen.get(id);
        if (earlier !== undefined)
          c.report(['rules', i, 'id'], `duplicate rule id "${id}" (also rules[${earlier}])`);
        else seen.set(id, i);
      }
      if (r) rules.push(r);
    });
  }
  if (c.problems.length > 0) return undefined;
  const body = { default: dflt as 'allow' | 'deny', rules };
  return { ...body, hash: policyHash(body) };
}

function buildRule(c: SpecChecker, raw: unknown, path: FieldPath): PolicyRule | undefined {
  const r = expectMapping(c, raw, path);
  if (!r) return undefined;
  checkKeys(c, r, path, RULE_KEYS);
  const id = readString(c, r, [...path, 'id'], { what: 'a rule id like "big-refunds"', pattern: RULE_ID });
  const description = readString(c, r, [...path, 'description'], { what: 'a string', optional: true });
  const outcome = field(r, 'outcome');
  if (outcome === undefined) c.missing([...path, 'outcome'], POLICY_OUTCOMES.join(', '));
  else if (!(POLICY_OUTCOMES as readonly unknown[]).includes(outcome))
    c.report([...path, 'outcome'], `expected ${POLICY_OUTCOMES.join(', ')}, got ${describeValue(outcome)}`);
  const channel = readString(c, r, [...path, 'channel'], {
    what: 'a channel name like "slack"',
    optional: true,
    pattern: WORD,
  });
  if (channel !== undefined && outcome !== 'require_approval')
    c.report([...path, 'channel'], 'only a require_approval rule has a channel', { at: 'key' });
  const reason = readString(c, r, [...path, 'reason'], { what: 'a string', optional: true });
  const match = buildMatch(c, field(r, 'match'), [...path, 'match']);
  const when = buildWhen(c, r, [...path, 'when']);
  if (id === undefined || match === undefined || !(POLICY_OUTCOMES as readonly unknown[]).includes(outcome))
    return undefined;
  return {
    id,
    match,
    outcome: outcome as PolicyOutcome,
    ...(description !== undefined ? { description } : {}),
    ...(when !== undefined ? { when } : {}),
    ...(channel !== undefined ? { channel } : {}),
    ...(reason !== undefined ? { reason } : {}),
  };
}

function buildWhen(c: SpecChecker, r: Obj, path: FieldPath): PolicyRule['when'] {
  const source = readString(c, r, path, { what: 'a condition like "args.amount_usd > 20"', optional: true });
  if (source === undefined) return undefined;
  try {
    return { source, condition: parseConditionIn(source, POLICY_CONDITION_SCOPE) };
  } catch (e) {
    if (!isKeelError(e)) throw e;
    const d = e.details as { position?: number; message?: string };
    c.report(path, `invalid condition: ${d.message ?? e.message}`, { charIndex: d.position });
    return undefined;
  }
}

/** A scalar or a list of scalars, each passing `ok`; normalised to a non-empty list. */
function readList<T extends string>(
  c: SpecChecker,
  m: Obj,
  path: FieldPath,
  what: string,
  ok: (v: unknown) => v is T,
): readonly T[] | undefined {
  const v = field(m, path[path.length - 1] as string);
  if (v === undefined) return undefined;
  const items = Array.isArray(v) ? v : [v];
  if (items.length === 0) {
    c.report(path, `expected ${what} or a non-empty list of them, got an empty list`);
    return undefined;
  }
  let good = true;
  items.forEach((item, i) => {
    if (ok(item)) return;
    good = false;
    c.report(Array.isArray(v) ? [...path, i] : path, `expected ${what}, got ${describeValue(item)}`);
  });
  return good ? (items as T[]) : undefined;
}

const isWord = (v: unknown): v is string => typeof v === 'string' && WORD.test(v);
const isStatus = (v: unknown): v is string => typeof v === 'string' && isWorkflowStatus(v);
const isEffect = (v: unknown): v is ToolEffect => (TOOL_EFFECTS as readonly unknown[]).includes(v);

function buildMatch(c: SpecChecker, raw: unknown, path: FieldPath): RuleMatch | undefined {
  if (raw === undefined) return {};
  const m = expectMapping(c, raw, path);
  if (!m) return undefined;
  checkKeys(c, m, path, MATCH_KEYS);
  const destructive = field(m, 'destructive');
  if (destructive !== undefined && typeof destructive !== 'boolean')
    c.report([...path, 'destructive'], `expected true or false, got ${describeValue(destructive)}`);
  const out: Record<string, unknown> = {
    tool: readList(c, m, [...path, 'tool'], 'a tool name or prefix pattern like "payments.*"', isToolPattern),
    destructive: typeof destructive === 'boolean' ? destructive : undefined,
    effect: readList(c, m, [...path, 'effect'], `one of ${TOOL_EFFECTS.join(', ')}`, isEffect),
    scopes: readList(c, m, [...path, 'scopes'], 'a scope name', isWord),
    status: readList(c, m, [...path, 'status'], `one of ${WORKFLOW_STATUSES.join(', ')}`, isStatus),
    tenant: readList(c, m, [...path, 'tenant'], 'a tenant name', isWord),
  };
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out as RuleMatch;
}
