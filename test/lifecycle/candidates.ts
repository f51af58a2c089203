/**
 * The candidate-version harness's world (docs/lifecycle.md, "The candidate harness"): a LIVE
 * refund desk (v1) over the support desk's tools, candidate versions of it — pure refactors and
 * subtle behaviour changes — a seeded stream of varied events, and a small model of what a version
 * does on an event, written here without Keel's comparison code.
 *
 * The model is the harness's ground truth: for a version and an event it says whether the version
 * starts, and which tool calls it proposes with which arguments, which are refused (and with what
 * code), which ask a person and what the person decides. Each trigger carries its condition twice:
 * as the spec's text (what Keel evaluates) and as a plain predicate (what the model evaluates).
 * Two behaviours differ when the model's normalised call lists differ (`sameBehaviour`); the test
 * checks the model against every run Keel made, then checks Keel's verdicts against the model.
 */

/** An event as emitted: fields are left out where the generator leaves them out. */
export interface HarnessEvent {
  readonly id: string;
  readonly type: string;
  readonly subject?: string;
  readonly time: string;
  readonly payload: {
    readonly refund_amount?: number;
    readonly currency?: string;
    readonly reason?: string;
    /** The ticket the customer named in the form: usually the subject, sometimes another, sometimes absent. */
    readonly ticket?: string;
  };
}

export interface HarnessTrigger {
  readonly event: string;
  /** The condition as the spec says it (Keel's condition language). */
  readonly when: string;
  /** The same condition as a plain predicate over the payload (the model's). */
  readonly holds: (p: HarnessEvent['payload']) => boolean;
}

export interface HarnessStep {
  readonly name: string;
  readonly tool: string;
  /** Literal text, whole-value templates (`{{event.x.y}}`, `{{steps.s.output.f}}`), or text with templates in it. */
  readonly args: Readonly<Record<string, string>>;
}

export interface HarnessSpec {
  readonly description: string;
  readonly triggers: readonly HarnessTrigger[];
  readonly steps: readonly HarnessStep[];
  readonly maxSteps: number;
  /** Dollars, at most two decimals. */
  readonly maxCostUsd: number;
  readonly tests: readonly Record<string, unknown>[];
}

export interface Candidate {
  /** A short name, used in messages. */
  readonly name: string;
  /** What the harness claims it is; the model decides which events it changes, not this label. */
  readonly kind: 'refactor' | 'behaviour';
  readonly what: string;
  readonly spec: HarnessSpec;
  /**
   * What `keel diff` says of it: `sameBehaviour` true for refactors it can recognise; false for
   * every behaviour change, and for the refactors a diff cannot know are refactors: a raised
   * maxSteps (it cannot know the limit never binds), a trigger split in two whose union is the old
   * condition (it compares triggers one by one), an argument read from an earlier step's result
   * that holds the same value (it cannot know what a tool returns).
   */
  readonly diffSameBehaviour: boolean;
}

export const TENANT = 'acme';
export const WORKFLOW = 'refund-desk';
/** The person who approves or denies the live runs' refunds. */
export const APPROVER = 'dana';

/**
 * The tenant's policy: refunds over $30 and closing a ticket need a person. The model's copy is
 * `needsPerson`; v1 is AUTONOMOUS, so the destructive guardrail asks nobody and only this asks.
 */
export const POLICY = `default: allow
rules:
  - id: refunds-over-30
    match: { tool: issue_refund }
    when: args.amount_usd > 30
    outcome: require_approval
    reason: refunds over $30 need a person
  - id: closing-needs-a-person
    match: { tool: close_ticket }
    outcome: require_approval
    reason: a person closes tickets
`;

const needsPerson = (tool: string, args: Record<string, unknown>) =>
  (tool === 'issue_refund' && typeof args.amount_usd === 'number' && args.amount_usd > 30) ||
  tool === 'close_ticket';

/** What the person asked on a live run decides: refunds of requests flagged as fraud are denied. */
export const personDenies = (e: HarnessEvent) => e.payload.reason === 'fraud';

// ---- The versions ------------------------------------------------------------------------------

const isNum = (x: unknown): x is number => typeof x === 'number';
const usd = (p: HarnessEvent['payload']) => p.currency === 'USD';
const REPLY_BODY =
  'Thanks for reaching out. We are processing your refund request now (reference {{id.new}}).';

const TESTS: readonly Record<string, unknown>[] = [
  {
    name: 'refunds 20',
    event: {
      type: 'refund.requested',
      subject: 'T-1001',
      payload: { refund_amount: 20, currency: 'USD' },
    },
    expect: { status: 'completed' },
  },
  {
    name: 'leaves euros to the EU desk',
    event: { type: 'refund.requested', subject: 'T-1002', payload: { refund_amount: 20, currency: 'EUR' } },
    expect: { starts: false },
  },
];

export const V1: HarnessSpec = {
  description:
    'Reply to a refund request in dollars under $100, tag the ticket, and refund the amount asked: a person approves refunds over $30, and the spend cap refuses more than $50.',
  triggers: [
    {
      event: 'refund.requested',
      when: 'payload.currency == "USD" and payload.refund_amount < 100',
      holds: (p) => usd(p) && isNum(p.refund_amount) && p.refund_amount < 100,
    },
  ],
  steps: [
    { name: 'reply', tool: 'draft_reply', args: { ticket_id: '{{event.subject}}', body: REPLY_BODY } },
    { name: 'tag', tool: 'tag_ticket', args: { ticket_id: '{{event.subject}}', tag: 'refund' } },
    {
      name: 'refund',
      tool: 'issue_refund',
      args: { ticket_id: '{{event.subject}}', amount_usd: '{{event.payload.refund_amount}}' },
    },
    {
      name: 'confirm',
      tool: 'draft_reply',
      args: {
        ticket_id: '{{event.subject}}',
        body: 'Your refund {{steps.refund.output.refund_id}} is on its way.',
      },
    },
  ],
  maxSteps: 5,
  maxCostUsd: 50,
  tests: TESTS,
};

const [REPLY, TAG, REFUND, CONFIRM] = V1.steps as [HarnessStep, HarnessStep, HarnessStep, HarnessStep];
const CLOSE: HarnessStep = {
  name: 'close',
  tool: 'close_ticket',
  args: { ticket_id: '{{event.subject}}', resolution: 'refund handled' },
};
const trigger = (when: string, holds: HarnessTrigger['holds'], event = 'refund.requested') => ({
  event,
  when,
  holds,
});
const v1With = (o: Partial<HarnessSpec>): HarnessSpec => ({ ...V1, ...o });

/** The candidates, SHADOW all at once beside v1 (their versions are 2, 3, ... in this order). */
export const CANDIDATES: readonly Candidate[] = [
  // Pure refactors: each must agree with v1 on every event.
  {
    name: 'renamed steps',
    kind: 'refactor',
    what: 'reply, tag, refund are now acknowledge, label, pay',
    spec: v1With({
      steps: [
        { ...REPLY, name: 'acknowledge' },
        { ...TAG, name: 'label' },
        { ...REFUND, name: 'pay' },
        {
          ...CONFIRM,
          args: { ...CONFIRM.args, body: 'Your refund {{steps.pay.output.refund_id}} is on its way.' },
        },
      ],
    }),
    diffSameBehaviour: true,
  },
  {
    name: 'trigger rewritten',
    kind: 'refactor',
    what: 'the trigger condition reordered, in extra parentheses, with 100 > x for x < 100',
    spec: v1With({
      triggers: [
        trigger(
          '(100 > payload.refund_amount) and ((payload.currency == "USD"))',
          (p) => isNum(p.refund_amount) && 100 > p.refund_amount && usd(p),
        ),
      ],
    }),
    diffSameBehaviour: true,
  },
  {
    name: 'templates respaced, reworded',
    kind: 'refactor',
    what: 'templates written {{ event.subject }}, a new description, a test renamed and one added',
    spec: v1With({
      description: 'Answers dollar refund requests under $100: reply, tag, refund (over $30 asks a person).',
      steps: [
        { ...REPLY, args: { ticket_id: '{{ event.subject }}', body: REPLY_BODY } },
        { ...TAG, args: { ticket_id: '{{ event.subject}}', tag: 'refund' } },
        {
          ...REFUND,
          args: { ticket_id: '{{event.subject }}', amount_usd: '{{  event.payload.refund_amount  }}' },
        },
        {
          ...CONFIRM,
          args: { ...CONFIRM.args, body: 'Your refund {{ steps.refund.output.refund_id }} is on its way.' },
        },
      ],
      tests: [
        { ...TESTS[0], name: 'refunds twenty dollars' },
        TESTS[1]!,
        {
          name: 'refuses 60 at the spend cap',
          event: {
            type: 'refund.requested',
            subject: 'T-1003',
            payload: { refund_amount: 60, currency: 'USD' },
          },
          expect: { status: 'refused', refusal: 'spend_cap_exceeded' },
        },
      ],
    }),
    diffSameBehaviour: true,
  },
  {
    name: 'maxSteps raised',
    kind: 'refactor',
    what: 'at most 10 steps a run instead of 5: never binding on four steps',
    spec: v1With({ maxSteps: 10 }),
    diffSameBehaviour: false,
  },
  {
    name: 'trigger split in two',
    kind: 'refactor',
    what: 'two triggers, under $50 and from $50 to under $100, whose union is the old condition',
    spec: v1With({
      triggers: [
        trigger(
          'payload.currency == "USD" and payload.refund_amount < 50',
          (p) => usd(p) && isNum(p.refund_amount) && p.refund_amount < 50,
        ),
        trigger(
          'payload.currency == "USD" and payload.refund_amount >= 50 and payload.refund_amount < 100',
          (p) => usd(p) && isNum(p.refund_amount) && p.refund_amount >= 50 && p.refund_amount < 100,
        ),
      ],
    }),
    diffSameBehaviour: false,
  },
  {
    name: 'negated equality, arguments reordered',
    kind: 'refactor',
    what: 'not (currency != "USD") for currency == "USD"; the refund arguments written in another order',
    spec: v1With({
      triggers: [
        trigger(
          'not (payload.currency != "USD") and payload.refund_amount < 100',
          (p) => !(p.currency !== 'USD') && isNum(p.refund_amount) && p.refund_amount < 100,
        ),
      ],
      steps: [
        REPLY,
        TAG,
        {
          ...REFUND,
          args: { amount_usd: '{{event.payload.refund_amount}}', ticket_id: '{{event.subject}}' },
        },
        CONFIRM,
      ],
    }),
    diffSameBehaviour: true,
  },
  {
    name: 'ticket read from the reply',
    kind: 'refactor',
    what: "the refund's ticket read from the reply's result ({{steps.reply.output.ticket_id}}), which is the subject",
    spec: v1With({
      steps: [
        REPLY,
        TAG,
        { ...REFUND, args: { ...REFUND.args, ticket_id: '{{steps.reply.output.ticket_id}}' } },
        CONFIRM,
      ],
    }),
    diffSameBehaviour: false,
  },
  {
    name: 'step names swapped',
    kind: 'refactor',
    what: 'the reply step is called tag and the tag step reply',
    spec: v1With({ steps: [{ ...REPLY, name: 'tag' }, { ...TAG, name: 'reply' }, REFUND, CONFIRM] }),
    diffSameBehaviour: true,
  },
  // Behaviour changes: each differs from v1 on some events, and only on those.
  {
    name: 'trigger narrowed',
    kind: 'behaviour',
    what: 'starts under $80 only: requests from $80 to under $100 are no longer handled',
    spec: v1With({
      triggers: [
        trigger(
          'payload.currency == "USD" and payload.refund_amount < 80',
          (p) => usd(p) && isNum(p.refund_amount) && p.refund_amount < 80,
        ),
      ],
    }),
    diffSameBehaviour: false,
  },
  {
    name: 'trigger broadened',
    kind: 'behaviour',
    what: 'also starts on euro requests',
    spec: v1With({
      triggers: [
        trigger(
          '(payload.currency == "USD" or payload.currency == "EUR") and payload.refund_amount < 100',
          (p) =>
            (p.currency === 'USD' || p.currency === 'EUR') && isNum(p.refund_amount) && p.refund_amount < 100,
        ),
      ],
    }),
    diffSameBehaviour: false,
  },
  {
    name: 'spend cap raised to $55',
    kind: 'behaviour',
    what: 'refunds from $50.01 to $55 go through (with a person) where v1 refused them',
    spec: v1With({ maxCostUsd: 55 }),
    diffSameBehaviour: false,
  },
  {
    name: 'boundary < to <=',
    kind: 'behaviour',
    what: 'payload.refund_amount <= 100: only a request of exactly $100 starts it where v1 does not',
    spec: v1With({
      triggers: [
        trigger(
          'payload.currency == "USD" and payload.refund_amount <= 100',
          (p) => usd(p) && isNum(p.refund_amount) && p.refund_amount <= 100,
        ),
      ],
    }),
    diffSameBehaviour: false,
  },
  {
    name: 'negated boundary',
    kind: 'behaviour',
    what: 'not (payload.refund_amount >= 100) for payload.refund_amount < 100: it also starts where the amount is missing',
    spec: v1With({
      triggers: [
        trigger(
          'payload.currency == "USD" and not (payload.refund_amount >= 100)',
          (p) => usd(p) && !(isNum(p.refund_amount) && p.refund_amount >= 100),
        ),
      ],
    }),
    diffSameBehaviour: false,
  },
  {
    name: 'steps reordered',
    kind: 'behaviour',
    what: 'refunds before tagging',
    spec: v1With({ steps: [REPLY, REFUND, TAG, CONFIRM] }),
    diffSameBehaviour: false,
  },
  {
    name: 'refund ticket from the payload',
    kind: 'behaviour',
    what: 'refunds the ticket the form names (payload.ticket), which is absent or another on some events',
    spec: v1With({
      steps: [
        REPLY,
        TAG,
        { ...REFUND, args: { ...REFUND.args, ticket_id: '{{event.payload.ticket}}' } },
        CONFIRM,
      ],
    }),
    diffSameBehaviour: false,
  },
  {
    name: 'closes instead of tagging',
    kind: 'behaviour',
    what: 'the tag step calls close_ticket (destructive; the policy asks a person) instead of tag_ticket',
    spec: v1With({ steps: [REPLY, { ...CLOSE, name: 'tag' }, REFUND, CONFIRM] }),
    diffSameBehaviour: false,
  },
  {
    name: 'extra close step',
    kind: 'behaviour',
    what: 'closes the ticket after the refund (a person must approve it)',
    spec: v1With({ steps: [REPLY, TAG, REFUND, CONFIRM, CLOSE], maxSteps: 6 }),
    diffSameBehaviour: false,
  },
  {
    name: 'tag step removed',
    kind: 'behaviour',
    what: 'no longer tags the ticket',
    spec: v1With({ steps: [REPLY, REFUND, CONFIRM] }),
    diffSameBehaviour: false,
  },
  {
    name: 'spend cap lowered to $40',
    kind: 'behaviour',
    what: 'refunds from $40.01 to $50 are refused where v1 refunded them (or a person denied them)',
    spec: v1With({ maxCostUsd: 40 }),
    diffSameBehaviour: false,
  },
  {
    name: 'spend cap up one cent',
    kind: 'behaviour',
    what: 'a $50.01 refund goes through: one exact amount',
    spec: v1With({ maxCostUsd: 50.01 }),
    diffSameBehaviour: false,
  },
  {
    name: 'new trigger event',
    kind: 'behaviour',
    what: 'also starts on refund.escalated events',
    spec: v1With({
      triggers: [
        V1.triggers[0]!,
        trigger(
          'payload.currency == "USD" and payload.refund_amount < 100',
          (p) => usd(p) && isNum(p.refund_amount) && p.refund_amount < 100,
          'refund.escalated',
        ),
      ],
    }),
    diffSameBehaviour: false,
  },
];

/** The spec value Keel publishes for a harness spec at `version`. */
export function specValue(s: HarnessSpec, version: number): Record<string, unknown> {
  return {
    id: WORKFLOW,
    version,
    status: 'DRAFT',
    description: s.description,
    triggers: s.triggers.map((t) => ({ event: t.event, when: t.when })),
    steps: s.steps.map((x) => ({ name: x.name, tool: x.tool, args: { ...x.args } })),
    limits: { maxSteps: s.maxSteps, maxCostUsd: s.maxCostUsd },
    tests: s.tests,
  };
}

// ---- The events --------------------------------------------------------------------------------

/** A small seeded generator (mulberry32): the same events on every run of the suite. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Amounts at and around every boundary some version draws (policy $30, caps $40/$50/$50.01/$55, triggers $80/$100). */
export const BOUNDARY_AMOUNTS = [
  0.01, 29.99, 30, 30.01, 39.99, 40, 40.01, 49.99, 50, 50.01, 50.02, 54.99, 55, 55.01, 79.99, 80, 80.01,
  99.99, 100, 100.01,
] as const;

/**
 * `count` events, deterministically: every boundary amount as a plain dollar request first (and
 * the ones a person's denial or another event type makes interesting again), then seeded ones —
 * amounts in cents, mostly up to $60, some up to $120, many at the boundaries, odd amounts (0, negative, three
 * decimals, absent), currencies (USD, EUR, GBP, absent), event types the desk does not handle,
 * subjects absent or malformed, the form's ticket the subject, another or absent, reasons
 * (fraud ones are denied by the person).
 */
export function harnessEvents(count: number, seed = 26): HarnessEvent[] {
  const out: HarnessEvent[] = [];
  const time = (i: number) =>
    `2026-12-01T${String(8 + Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00Z`;
  const add = (type: string, subject: string | undefined, payload: HarnessEvent['payload']) => {
    const i = out.length;
    out.push({ id: `evt-${i}`, type, ...(subject !== undefined ? { subject } : {}), time: time(i), payload });
  };
  let ticket = 3000;
  const plain = (amount: number, o: Partial<HarnessEvent['payload']> = {}, type = 'refund.requested') => {
    const subject = `T-${ticket++}`;
    add(type, subject, { refund_amount: amount, currency: 'USD', reason: 'damaged', ticket: subject, ...o });
  };
  for (const a of BOUNDARY_AMOUNTS) plain(a);
  for (const a of [30.01, 40, 45, 50, 50.01, 55]) plain(a, { reason: 'fraud' });
  for (const a of [30, 99.99, 100]) plain(a, { currency: 'EUR' });
  for (const a of [20, 45, 100]) plain(a, {}, 'refund.escalated');
  const rnd = seeded(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const weighted = <T>(xs: readonly [T, number][]): T => {
    let r = rnd() * xs.reduce((n, [, w]) => n + w, 0);
    for (const [x, w] of xs) {
      r -= w;
      if (r < 0) return x;
    }
    return xs[xs.length - 1]![0];
  };
  while (out.length < count) {
    const type = weighted([
      ['refund.requested', 84],
      ['refund.escalated', 8],
      ['ticket.closed', 8],
    ]);
    const amount = weighted<number | undefined>([
      [Math.floor(rnd() * 6_000 + 1) / 100, 52],
      [Math.floor(rnd() * 12_000 + 1) / 100, 18],
      [pick(BOUNDARY_AMOUNTS), 18],
      [pick([0, -5, 12.345, 100.5]), 6],
      [undefined, 6],
    ]);
    const currency = weighted<string | undefined>([
      ['USD', 72],
      ['EUR', 14],
      ['GBP', 9],
      [undefined, 5],
    ]);
    const subject = weighted<string | undefined>([
      [`T-${ticket++}`, 92],
      [undefined, 4],
      [`X-${ticket++}`, 4],
    ]);
    const formTicket = weighted<string | undefined>([
      [subject, 72],
      [`T-${ticket++}`, 14],
      [undefined, 14],
    ]);
    const reason = weighted<string | undefined>([
      ['damaged', 30],
      ['late', 25],
      ['wrong-item', 20],
      ['fraud', 12],
      [undefined, 13],
    ]);
    add(type, subject, {
      ...(amount !== undefined ? { refund_amount: amount } : {}),
      ...(currency !== undefined ? { currency } : {}),
      ...(reason !== undefined ? { reason } : {}),
      ...(formTicket !== undefined ? { ticket: formTicket } : {}),
    });
  }
  return out;
}

// ---- The model ---------------------------------------------------------------------------------

/** One decision on a proposed call, as a behaviour: what was proposed and what became of it. */
export interface ModelDecision {
  readonly tool: string;
  /**
   * The arguments, where the call was made or put to a person. A refusal by a check (schema,
   * spend cap) has none: nothing was done with them, and the ledger keeps no arguments for it.
   */
  readonly args: Readonly<Record<string, unknown>> | null;
  readonly outcome: 'allowed' | 'refused';
  readonly code?: string;
  /** Whether a person was asked (a shadow assumes the answer: approved). */
  readonly approval: boolean;
  /** A person denied it (live runs only). */
  readonly denied?: boolean;
}

export interface ModelRun {
  readonly starts: boolean;
  readonly decisions: readonly ModelDecision[];
  readonly status: 'completed' | 'refused' | 'not started';
}

const TICKET = /^T-[0-9]+$/;
const TAG_TEXT = /^[a-z0-9-]{1,40}$/;
/** A number with at most two decimals (what multipleOf 0.01 accepts), in cents. */
const cents = (x: number): number | undefined =>
  /^-?\d+(\.\d{1,2})?$/.test(String(x)) ? Math.round(x * 100) : undefined;

/** The support desk's argument schemas, as the model reads them: whether the arguments fit. */
function argsFit(tool: string, a: Record<string, unknown>): boolean {
  const ticket = typeof a.ticket_id === 'string' && TICKET.test(a.ticket_id);
  switch (tool) {
    case 'draft_reply':
      return ticket && typeof a.body === 'string' && a.body.length >= 1 && a.body.length <= 4000;
    case 'tag_ticket':
      return ticket && typeof a.tag === 'string' && TAG_TEXT.test(a.tag);
    case 'issue_refund':
      return ticket && isNum(a.amount_usd) && a.amount_usd > 0 && cents(a.amount_usd) !== undefined;
    case 'close_ticket':
      return (
        ticket &&
        (a.resolution === undefined || (typeof a.resolution === 'string' && a.resolution.length <= 400))
      );
    default:
      return false;
  }
}

/** What the model knows of a drawn id: that one was drawn (a shadow draws what its live run drew). */
export const DRAWN_ID = '<id.new>';

/** What the model knows of a refund's result: its id stands for the call that made it. */
export const refundIdOf = (args: Readonly<Record<string, unknown>>) => `<refund of ${canonical(args)}>`;

/**
 * A template's value (a whole-value `{{event...}}` keeps its type; text with templates in it is
 * text), in the event as Keel records it (an absent subject is '') and the outputs of the steps
 * run so far; undefined where a whole-value template names nothing, UNRESOLVED where text does.
 */
function resolve(template: string, e: HarnessEvent, outputs: Map<string, Record<string, unknown>>): unknown {
  const recorded: Record<string, unknown> = { ...e, subject: e.subject ?? '' };
  const read = (path: string): unknown => {
    const [root, ...rest] = path.split('.');
    if (root === 'event')
      return rest.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], recorded);
    if (root === 'steps' && rest[1] === 'output') return outputs.get(rest[0]!)?.[rest[2]!];
    if (path === 'id.new') return DRAWN_ID;
    throw new Error(`the model reads no ${path}`);
  };
  const whole = /^\{\{\s*([a-z_.]+)\s*\}\}$/.exec(template);
  if (whole) return read(whole[1]!);
  let unresolved = false;
  const text = template.replace(/\{\{\s*([a-z_.]+)\s*\}\}/g, (_, path: string) => {
    const v = read(path);
    if (v === undefined) unresolved = true;
    return String(v);
  });
  return unresolved ? UNRESOLVED : text;
}
const UNRESOLVED = Symbol('unresolved');

/**
 * What `s` does on `e`: the live run (`live`: a person decides where it asks) or a shadow (every
 * request to a person assumed approved). Checks in Keel's order: templates resolve, arguments fit
 * the tool's schema, the step limit, the spend cap (issue_refund costs its amount), then the
 * policy's ask.
 */
export function modelRun(s: HarnessSpec, e: HarnessEvent, live: boolean): ModelRun {
  const starts = s.triggers.some((t) => t.event === e.type && t.holds(e.payload));
  if (!starts) return { starts, decisions: [], status: 'not started' };
  const decisions: ModelDecision[] = [];
  const outputs = new Map<string, Record<string, unknown>>();
  let spent = 0;
  const capCents = Math.round(s.maxCostUsd * 100);
  for (const step of s.steps) {
    const refused = (code: string) => {
      decisions.push({ tool: step.tool, args: null, outcome: 'refused', code, approval: false });
      return { starts, decisions, status: 'refused' as const };
    };
    const args: Record<string, unknown> = {};
    for (const [k, t] of Object.entries(step.args)) {
      const v = resolve(t, e, outputs);
      if (v === UNRESOLVED) return refused('unresolved_arguments');
      if (v !== undefined) args[k] = v;
    }
    if (!argsFit(step.tool, args)) return refused('invalid_arguments');
    if (decisions.length + 1 > s.maxSteps) return refused('max_steps_exceeded');
    const cost = step.tool === 'issue_refund' ? cents(args.amount_usd as number)! : 0;
    if (spent + cost > capCents) return refused('spend_cap_exceeded');
    const approval = needsPerson(step.tool, args);
    if (approval && live && personDenies(e)) {
      decisions.push({
        tool: step.tool,
        args,
        outcome: 'refused',
        code: 'approval_denied',
        approval,
        denied: true,
      });
      return { starts, decisions, status: 'refused' };
    }
    decisions.push({ tool: step.tool, args, outcome: 'allowed', approval });
    // What later steps read of a result: a refund's id, the ticket a reply went to.
    outputs.set(
      step.name,
      step.tool === 'issue_refund'
        ? { refund_id: refundIdOf(args) }
        : step.tool === 'draft_reply'
          ? { ticket_id: args.ticket_id }
          : {},
    );
    spent += cost;
  }
  return { starts, decisions, status: 'completed' };
}

const sameCall = (a: ModelDecision, b: ModelDecision) =>
  a.tool === b.tool && canonical(a.args) === canonical(b.args);
const sameDecision = (a: ModelDecision, b: ModelDecision) =>
  sameCall(a, b) && a.outcome === b.outcome && a.code === b.code && a.approval === b.approval;

/** Arguments as text, keys sorted (they are flat). */
function canonical(v: Readonly<Record<string, unknown>> | null): string {
  return JSON.stringify(
    v === null ? null : Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : 1))),
  );
}

/**
 * Whether a candidate's shadow behaves as the live run did on the same event: both start or
 * neither; then the same calls, in the same order, ending the same way. Where a person denied the
 * live run a call, what the candidate did afterwards assumed an approval nobody gave: the two are
 * the same when the candidate got there alike (the same decisions before it) and would have put
 * the same call to a person.
 */
export function sameBehaviour(live: ModelRun, candidate: ModelRun): boolean {
  if (live.starts !== candidate.starts) return false;
  if (!live.starts) return true;
  const d = live.decisions.findIndex((x) => x.denied);
  if (d >= 0) {
    const c = candidate.decisions[d];
    return (
      candidate.decisions.slice(0, d).every((x, i) => sameDecision(x, live.decisions[i]!)) &&
      c !== undefined &&
      sameCall(c, live.decisions[d]!) &&
      c.approval
    );
  }
  return (
    live.status === candidate.status &&
    live.decisions.length === candidate.decisions.length &&
    live.decisions.every((x, i) => sameDecision(x, candidate.decisions[i]!))
  );
}
