/**
 * Readings of how people type a rule (issue 30, round 2), each a class over catalogs no corpus
 * uses (a rebate desk, a facilities desk, a leave desk): short forms of the event's noun ("tix",
 * "req"), a currency code before the event's noun ("EUR rebate requests"), money said as a
 * fraction ("half a grand") or a bare number before a comma, and a bound said again after it
 * ("nothing more", "not a cent more", "that's the limit"). Every case goes through draftSpec, so
 * the safety checks judge each reading too.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { statedAmounts } from './draft-safety.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

/** A rebate desk: money moves, the event carries a currency. */
const rebates: DraftCatalog = {
  tools: [
    tool({
      name: 'pay_rebate',
      description: 'Pays a rebate to the dealer.',
      args: {
        type: 'object',
        required: ['claim_id', 'amount_usd'],
        properties: { claim_id: { type: 'string' }, amount_usd: { type: 'number' } },
      },
      effect: 'external',
      cost: { fromArg: 'amount_usd' },
    }),
    tool({
      name: 'label_claim',
      description: 'Adds a label to a rebate claim.',
      args: {
        type: 'object',
        required: ['claim_id', 'label'],
        properties: { claim_id: { type: 'string' }, label: { type: 'string' } },
      },
    }),
  ],
  events: [{ type: 'rebate.requested', payload: ['claim_id', 'rebate_amount', 'currency', 'dealer_tier'] }],
};

/** A facilities desk: tickets and requests, nothing moves money. */
const facilities: DraftCatalog = {
  tools: [
    tool({
      name: 'dispatch_crew',
      description: 'Dispatches a maintenance crew to a facilities ticket.',
      args: {
        type: 'object',
        required: ['ticket_id', 'crew'],
        properties: { ticket_id: { type: 'string' }, crew: { enum: ['plumbing', 'electrical', 'general'] } },
      },
    }),
  ],
  events: [{ type: 'ticket.raised', payload: ['ticket_id', 'urgency', 'building'] }],
};

const draftOn = (catalog: DraftCatalog) => (r: string) => draftSpec(compileRequest(r, catalog), catalog);
const rebate = draftOn(rebates);
const facility = draftOn(facilities);

test('short forms of the event noun name the event: "tix", "tkts", "reqs"', () => {
  for (const r of [
    'urgent tix: dispatch the general crew',
    'urgent tkts -> dispatch the general crew',
    'when urgent tix are raised dispatch the general crew',
  ]) {
    const d = facility(r);
    assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec?.triggers[0]?.event, 'ticket.raised', r);
    assert.equal(d.spec?.triggers[0]?.when, 'payload.urgency == "urgent"', r);
  }
  for (const r of ['rebate reqs: label them rebate', 'every rebate req: label it rebate']) {
    const d = rebate(r);
    assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec?.triggers[0]?.event, 'rebate.requested', r);
  }
});

test('a currency code before the event noun is a test of its currency field, in any case', () => {
  for (const [r, code] of [
    ['Only EUR rebate requests: label them euro', 'EUR'],
    ['usd rebate requests -> label it dollars', 'USD'],
    ['GBP-only rebate requests: label them sterling', 'GBP'],
  ] as const) {
    const d = rebate(r);
    assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec?.triggers[0]?.when, `payload.currency == "${code}"`, r);
  }
  // A code before a word that names no event is no test of it.
  const d = rebate('rebate requests: label them usd');
  assert.equal(d.spec?.triggers[0]?.when, undefined);
});

test('half a grand is $500, and the safety checks read it so too', () => {
  for (const r of [
    'pay rebates up to half a grand',
    'rebate requests: pay them, max half a grand',
    'pay back rebates, no more than half of a grand',
  ]) {
    const d = rebate(r);
    assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec?.limits.maxCostUsd, 500, r);
    assert.match((d.readBack?.assumed ?? []).join('\n'), /"half (?:of )?a grand" is read as \$500/);
  }
  assert.deepEqual(
    statedAmounts('pay up to half a grand').map((s) => s.usd),
    [500],
  );
  assert.deepEqual(
    statedAmounts('pay up to $40, not a cent more').map((s) => s.usd),
    [40],
  );
});

/** Words that say the bound again, after it. */
const RESTATED = [
  'nothing more',
  'and no more',
  'not a cent more',
  'not one penny more',
  "that's the limit",
  'thats the max',
  'but nothing over that',
  'no higher',
];
/** Upper bounds, with the amount said as digits (a bare number too, right before a comma). */
const BOUNDS: readonly ((n: string) => string)[] = [
  (n) => `up to ${n}`,
  (n) => `up to $${n}`,
  (n) => `max ${n} dollars`,
  (n) => `no more than ${n} bucks`,
  (n) => `under $${n}`,
];

test('property: a bound said again after it is that bound: the cap, no step, no question', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 99999 }),
      fc.integer({ min: 0, max: 99 }),
      fc.constantFrom(...BOUNDS),
      fc.constantFrom(...RESTATED),
      fc.constantFrom('pay rebates', 'rebate requests: pay them'),
      (whole, cents, bound, again, head) => {
        const n = cents === 0 ? String(whole) : `${whole}.${String(cents).padStart(2, '0')}`;
        const r = `${head} ${bound(n)}, ${again}`;
        const d = rebate(r);
        assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
        assert.equal(d.spec?.limits.maxCostUsd, Number(n), r);
        assert.equal(d.spec?.steps.length, 1, r);
      },
    ),
    { numRuns: 300 },
  );
});

test('words after a bound that say something else are still asked about', () => {
  // "nothing more to do" is no bound said again: the words are left for the coverage check.
  const d = rebate('pay rebates up to $40, nothing more to do here');
  assert.equal(d.publishable, false);
  // A bare number with a unit after it is no dollar amount.
  const e = rebate('pay rebates up to 3 days, then label them late');
  assert.equal(e.publishable, false);
});

/** An ISP's support desk: two events about cases, only one of which says how it came in. */
const isp: DraftCatalog = {
  tools: [
    tool({
      name: 'escalate_case',
      description: 'Escalates a support case to the network team.',
      args: { type: 'object', required: ['case_id'], properties: { case_id: { type: 'string' } } },
    }),
    tool({
      name: 'label_case',
      description: 'Adds a label to a support case.',
      args: {
        type: 'object',
        required: ['case_id', 'label'],
        properties: { case_id: { type: 'string' }, label: { type: 'string' } },
      },
    }),
  ],
  events: [
    { type: 'case.opened', payload: ['case_id', 'channel', 'plan', 'severity'] },
    { type: 'case.closed', payload: ['case_id', 'resolution'] },
  ],
};
const ispDraft = draftOn(isp);
const CHANNELS = ['chat', 'email', 'phone', 'sms', 'whatsapp', 'web', 'slack'] as const;

test('property: a channel said with the noun picks the one event that carries a channel, as its test', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...CHANNELS),
      fc.constantFrom(
        (w: string) => `${w} cases: escalate it`,
        (w: string) => `${w} cases -> escalate them`,
        (w: string) => `all ${w} cases - escalate it`,
      ),
      (w, form) => {
        const r = form(w);
        const d = ispDraft(r);
        assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
        assert.equal(d.spec?.triggers[0]?.event, 'case.opened', r);
        assert.equal(d.spec?.triggers[0]?.when, `payload.channel == "${w}"`, r);
        assert.match((d.readBack?.assumed ?? []).join('\n'), /only it carries a field for/, r);
      },
    ),
    { numRuns: 100 },
  );
});

test('property: a qualifier in parentheses, turned around or not, is a test of the field that holds it', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...CHANNELS),
      fc.constantFrom(['not', '!='], ['except', '!='], ['excluding', '!='], ['only', '==']) as fc.Arbitrary<
        [string, string]
      >,
      fc.constantFrom('ones', '', 'only'),
      (w, [lead, op], tail) => {
        const aside =
          lead === 'only' ? `(${w} only)` : `(${lead} ${w}${tail && tail !== 'only' ? ` ${tail}` : ''})`;
        const r = `opened cases ${aside} - escalate it`;
        const d = ispDraft(r);
        assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
        assert.equal(d.spec?.triggers[0]?.when, `payload.channel ${op} "${w}"`, r);
      },
    ),
    { numRuns: 100 },
  );
});

test('a customer group said with "unless" is a test that it is not that group, never that it is', () => {
  for (const r of [
    "critical cases, unless they're from trial accounts: escalate it",
    'critical cases except those from trial accounts - escalate it',
    'critical cases but not from trial customers: escalate it',
    'opened cases (not trial accounts) that are critical: escalate it',
  ]) {
    const d = ispDraft(r);
    assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
    const when = d.spec?.triggers[0]?.when ?? '';
    assert.match(when, /payload\.plan != "trial"/, r);
    assert.doesNotMatch(when, /payload\.plan == "trial"/, r);
  }
  // Without a field for the group, it is asked about, never dropped.
  const d = facility("urgent tickets, unless they're from trial accounts: dispatch the general crew");
  assert.equal(d.publishable, false);
  assert.match(JSON.stringify(d.questions), /trial/);
});

test('a word that stands for the noun in a heading: "low severity stuff", "anything critical"', () => {
  for (const [r, when] of [
    ['low severity stuff: escalate it', 'payload.severity == "low"'],
    ['critical things -> escalate them', 'payload.severity == "critical"'],
    ['cases that arent critical -> label them routine', 'payload.severity != "critical"'],
    ['normal severity cases - label them normal, escalate it', 'payload.severity == "normal"'],
  ] as const) {
    const d = ispDraft(r);
    assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec?.triggers[0]?.event, 'case.opened', r);
    assert.equal(d.spec?.triggers[0]?.when, when, r);
  }
  // A word no field of either event holds still asks which event, never guesses.
  const d = ispDraft('fibre cases: escalate it');
  assert.equal(d.publishable, false);
});

/** A leave desk: a tool that asks the employee's supervisor, a destructive approval, a message. */
const leave: DraftCatalog = {
  tools: [
    tool({
      name: 'request_supervisor_approval',
      description: "Asks the employee's supervisor for approval of a leave request.",
      args: {
        type: 'object',
        required: ['staff_id', 'leave_type', 'days'],
        properties: {
          staff_id: { type: 'string' },
          leave_type: { enum: ['annual', 'sick', 'unpaid'] },
          days: { type: 'integer' },
        },
      },
    }),
    tool({
      name: 'approve_leave',
      description: 'Approves a leave request in the HR system.',
      args: {
        type: 'object',
        required: ['staff_id', 'leave_type', 'days'],
        properties: {
          staff_id: { type: 'string' },
          leave_type: { enum: ['annual', 'sick', 'unpaid'] },
          days: { type: 'integer' },
        },
      },
      destructive: true,
    }),
  ],
  events: [{ type: 'leave.requested', payload: ['staff_id', 'leave_type', 'days', 'reason'] }],
};
const leaveDraft = draftOn(leave);
const toolsOf = (d: ReturnType<typeof leaveDraft>) =>
  (d.spec?.steps ?? []).map((s) => ('tool' in s ? s.tool : '?'));

test("a sign-off asked of the person a catalog tool names is that tool's step, a typo of the person too", () => {
  for (const r of [
    "leave requests: get the supervisor's ok, then approve it",
    'every leave request needs the supervisors sign off, then approve it',
    "leave requests: get the supervisr's sign-off and approve it",
    'leave requests: get their supervisor to sign off, then approve it',
    'when leave is requested send it to their supervisor for approval and then approve it',
    // Said as the time the action waits for: the sign-off first, never dropped.
    'leave requests: approve it once their supervisor has approved',
    'leave requests: approve it after the supervisor signs off',
    'leave requests: once the supervisor approves, approve it',
  ]) {
    const d = leaveDraft(r);
    assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
    assert.deepEqual(toolsOf(d), ['request_supervisor_approval', 'approve_leave'], r);
  }
  // A sign-off of someone no tool names is no call of it.
  const d = leaveDraft("leave requests: get the director's ok, then approve it");
  assert.ok(!toolsOf(d).includes('request_supervisor_approval'));
});

test('a sign-off said as not wanted bans its tool, read back under Assumed; with no such tool, a note', () => {
  for (const r of [
    'sick leave requests r low risk, just approve them w/o bothering the supervisor',
    'approve leave requests, no supervisor approval needed',
    'approve leave requests without asking their supervisor',
    'approve leave requests, no need to involve the supervisor',
  ]) {
    const d = leaveDraft(r);
    assert.equal(d.publishable, true, `${r}: ${JSON.stringify(d.questions)}`);
    assert.deepEqual(toolsOf(d), ['approve_leave'], r);
    assert.match(
      (d.readBack?.assumed ?? []).join('\n'),
      /is read as a ban: the workflow never calls request_supervisor_approval/,
      r,
    );
  }
  // Asked for and not wanted at once: a question.
  const both = leaveDraft(
    "leave requests: get the supervisor's ok and approve it, w/o bothering the supervisor",
  );
  assert.equal(both.publishable, false);
  // No tool asks a manager here: the words say no step, and a note keeps the person's approval honest.
  const d = facility('urgent tickets: dispatch the general crew w/o bothering the manager');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.match((d.readBack?.assumed ?? []).join('\n'), /no step asks the manager/);
});

test('a restatement of where an argument comes from changes nothing, or fixes it to the value said', () => {
  const own = leaveDraft(
    'every leave request needs the supervisors sign off, for whatever leave type / number of days they asked for',
  );
  assert.equal(own.publishable, true, JSON.stringify(own.questions));
  const ask = own.spec?.steps[0] as { args: Record<string, unknown> };
  assert.equal(ask.args.leave_type, '{{event.payload.leave_type}}');
  assert.equal(ask.args.days, '{{event.payload.days}}');
  assert.match((own.readBack?.assumed ?? []).join('\n'), /leave_type, days are the event's own/);

  const fixed = leaveDraft(
    "leave requests: regardless of the leave type asked for, get the supervisor's ok, then approve it as unpaid",
  );
  assert.equal(fixed.publishable, true, JSON.stringify(fixed.questions));
  for (const s of fixed.spec?.steps ?? [])
    assert.equal((s as { args: Record<string, unknown> }).args.leave_type, 'unpaid');
  // A restatement that names nothing the catalog has is not read away.
  assert.equal(leaveDraft('regardless of the weather, approve leave requests').publishable, false);
});

test('property: "thats it" and its kin after the last action change nothing', () => {
  const bases = [
    'approve leave requests',
    'urgent tix: dispatch the general crew',
    'pay rebates up to $40',
  ] as const;
  const on = (r: string) =>
    r.startsWith('approve') ? leaveDraft(r) : r.startsWith('pay') ? rebate(r) : facility(r);
  fc.assert(
    fc.property(
      fc.constantFrom(...bases),
      fc.constantFrom(', thats it', ", that's all", ' - nothing else', '. thats it', ', and that is all'),
      (base, tail) => {
        const plain = on(base);
        const d = on(`${base}${tail}`);
        assert.equal(d.publishable, plain.publishable, `${base}${tail}: ${JSON.stringify(d.questions)}`);
        assert.deepEqual(d.spec?.steps, plain.spec?.steps);
        assert.deepEqual(d.spec?.limits, plain.spec?.limits);
      },
    ),
    { numRuns: 60 },
  );
});
