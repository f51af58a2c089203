/**
 * Readings of requests as people type them, over generated combinations: a trigger clause typed
 * without its comma, chat abbreviations, other spellings of the catalog's verbs and conditions
 * placed after the action give the same draft as the plain phrasing. Every case also goes through
 * draftSpec, so the safety checks (draft-safety.ts) judge each reading.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { supportDeskCatalog } from '../../../test/authoring/support-desk-catalog.ts';
import { compileRequest, type DraftCatalog, draftSpec } from './index.ts';

const catalog: DraftCatalog = {
  tools: supportDeskCatalog(),
  events: [
    { type: 'refund.requested', payload: ['refund_amount', 'currency', 'reason'] },
    { type: 'ticket.resolved', payload: ['resolution'] },
    { type: 'ticket.opened', payload: [] },
  ],
};

const draft = (request: string) => draftSpec(compileRequest(request, catalog), catalog);
/** What a draft does, without its description (which quotes the request). */
const meaning = (request: string) => {
  const d = draft(request);
  return d.publishable && d.spec
    ? { triggers: d.spec.triggers, steps: d.spec.steps, limits: d.spec.limits }
    : { asked: true };
};

const TRIGGERS = [
  'when a refund request comes in',
  'whenever a customer asks for a refund',
  'once a refund has been requested',
  'when a refund is requested',
];
const ACTIONS = [
  'refund it up to $30',
  'refund them, max $25',
  'reply "We are on it" and refund it under $40',
  'send them a reply "Thanks"',
];

test('property: a trigger clause typed without its comma drafts as with it', () => {
  fc.assert(
    fc.property(fc.constantFrom(...TRIGGERS), fc.constantFrom(...ACTIONS), (t, a) => {
      const withComma = meaning(`${t}, ${a}`);
      assert.notDeepEqual(withComma, { asked: true }, `${t}, ${a}`);
      assert.deepEqual(meaning(`${t} ${a}`), withComma, `${t} ${a}`);
    }),
    { numRuns: 60 },
  );
});

test('the action after a trigger typed without a comma: "tag it done and then close it" is two steps', () => {
  const d = draft('when a ticket gets resolved tag it done and then close it');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(
    d.spec?.steps.map((s) => ('tool' in s ? [s.tool, s.args.tag] : [])),
    [
      ['tag_ticket', 'done'],
      ['close_ticket', undefined],
    ],
  );
});

const CONDITIONS = [
  "if it's in USD",
  "if it's under $40",
  "if it's $25 or less",
  'if the amount is no more than 60 dollars',
  "only if it's in USD",
];
const RESTS = ['refund it', 'reply "Thanks" and refund it', 'refund them'];

test('property: a condition placed before or after the action gives the same draft', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...TRIGGERS),
      fc.constantFrom(...CONDITIONS),
      fc.constantFrom(...RESTS),
      fc.constantFrom('', ', max $30', ', never more than USD 35'),
      (t, c, a, cap) => {
        const before = meaning(`${t}, ${c}, ${a}${cap}`);
        for (const after of [`${t}, ${a}, ${c}${cap}`, `${t}, ${a} ${c}${cap}`, `${t}, ${a}${cap}, ${c}`]) {
          const m = meaning(after);
          // Either both draft the same, or the after-form asks (never a different draft).
          if ('asked' in before) assert.ok('asked' in m, after);
          else assert.deepEqual(m, before, `${after}\nvs ${t}, ${c}, ${a}${cap}`);
        }
        const cond = "if it's in USD";
        if (c === cond && cap !== '') assert.notDeepEqual(before, { asked: true }, `${t}, ${c}, ${a}${cap}`);
      },
    ),
    { numRuns: 150 },
  );
});

/** Ways people type the same request: chat abbreviations, "&", other spellings of money. */
const MUTATIONS: readonly ((r: string) => string)[] = [
  (r) => `pls ${r}`,
  (r) => `${r} asap`,
  (r) => `${r} pls`,
  (r) => r.replace(' and ', ' & '),
  (r) => r.replace(/\$([0-9]+)/, 'USD $1'),
  (r) => r.replace(/\$([0-9]+)/, '$1 dollars'),
  (r) => r.replace(/\$([0-9]+)/, '$1 bucks'),
  (r) => r.replace(/\$([0-9]+)/, '$1$$'),
  (r) => r.replace(/\$2000\b/, '$2k').replace(/\$2000\b/, '$2,000'),
  (r) => r.replace('comes in', 'comes thru'),
  (r) => r.replace(', ', ' '),
  (r) => r.replace(/^when/, 'OK, when'),
];

test('property: abbreviations, "&" and other spellings of an amount give the same draft', () => {
  const bases = [
    'when a refund request comes in, reply "On it" and refund it up to $40',
    'when a ticket is resolved, tag it "done" and close it',
    'when a refund is requested, refund them under $2000 and tag it "refunded"',
  ];
  fc.assert(
    fc.property(
      fc.constantFrom(...bases),
      fc.subarray([...MUTATIONS.keys()], { maxLength: 4 }),
      (base, picked) => {
        const plain = meaning(base);
        assert.notDeepEqual(plain, { asked: true }, base);
        const typed = picked.reduce((r, i) => MUTATIONS[i]!(r), base);
        assert.deepEqual(meaning(typed), plain, typed);
      },
    ),
    { numRuns: 200 },
  );
});

test('other spellings of the catalog verbs: authorise, authorize, OK it and categorise', () => {
  const finance: DraftCatalog = {
    tools: [
      ...supportDeskCatalog(),
      {
        ...supportDeskCatalog().find((t) => t.name === 'close_ticket')!,
        name: 'approve_ticket',
        description: 'Approves a ticket.',
      },
    ],
    events: catalog.events,
  };
  const tool = (r: string) => {
    const d = draftSpec(compileRequest(r, finance), finance);
    return d.publishable ? d.spec?.steps.map((s) => ('tool' in s ? s.tool : '')) : d.questions;
  };
  for (const verb of ['approve', 'authorise', 'authorize', 'OK', 'okay'])
    assert.deepEqual(tool(`when a ticket is opened, ${verb} it`), ['approve_ticket'], verb);
  assert.deepEqual(tool('when a ticket is opened, categorise it "new"'), ['tag_ticket']);
  assert.deepEqual(tool('when a ticket is opened, sign off on it'), ['approve_ticket']);
  // "only after I sign off on it" is an approval of the close, not a second action.
  assert.deepEqual(tool('when a ticket is opened, close it, but only after I sign off on it'), [
    'close_ticket',
  ]);
  // An "OK," that opens a request is not an approval.
  assert.deepEqual(tool('OK, when a ticket is opened, close it'), ['close_ticket']);
});

test('an "if" typed with nothing after it is asked about, never dropped', () => {
  const d = draft('When a refund is requested, refund it up to $30 if');
  assert.equal(d.publishable, false);
});

test('"mark it urgent" is a tag; "mark it as refunded" may be the refund or a tag: a question, never a dropped step', () => {
  const tagged = draft("when a ticket is resolved, mark it as 'billing'");
  assert.deepEqual(
    tagged.spec?.steps.map((s) => ('tool' in s ? [s.tool, s.args.tag] : [])),
    [['tag_ticket', 'billing']],
  );
  const both = draft('when a refund is requested, mark it as refunded and refund it up to $20');
  assert.equal(both.publishable, false);
  assert.ok(both.questions.some((q) => /issue_refund or tag_ticket/.test(q.question)));
});

test('"pay the money back" and "give em their money back" are refunds, under the same cap', () => {
  for (const r of [
    'when a refund is requested, pay the money back up to $20',
    'when a refund is requested, give em their money back up to $20',
  ]) {
    const d = draft(r);
    assert.equal(d.publishable, true, r);
    assert.deepEqual(
      d.spec?.steps.map((s) => ('tool' in s ? s.tool : '')),
      ['issue_refund'],
    );
    assert.equal(d.spec?.limits.maxCostUsd, 20);
  }
});
