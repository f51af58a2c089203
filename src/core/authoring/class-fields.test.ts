/**
 * Classification fields no sample shows (grammar/class-fields.ts), over a review desk no corpus
 * uses: the catalog's one list of classes (a suppression's `cause`) is read as what the event's
 * classification field (`kind`) holds, Assumed, so the argument takes the field and a class said of
 * the events tests it, also said as a heading ("offensive: ..."), never only as the argument; a
 * word no reading accounts for is then asked about, never dropped. Samples that show the field's
 * values decide instead, and two lists of classes read nothing. Also: "keep a copy for audit" for a
 * yes/no argument the tool's description keeps a copy for (grammar/read-yes-no.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import type { StepSpec } from '../spec/workflow-spec.ts';
import type { ToolDescriptor } from '../tools/tool-descriptor.ts';
import { compileRequest } from './compile-request.ts';
import { type DraftCatalog, draftSpec, type EventShape } from './index.ts';

const CAUSES = ['fake', 'offensive', 'offtopic', 'other'];
const suppress = (causes = CAUSES) =>
  tool({
    name: 'suppress_review',
    description: 'Hides a review from the product page until a moderator looks at it.',
    args: {
      type: 'object',
      required: ['review_id', 'cause'],
      properties: { review_id: { type: 'string' }, cause: { enum: causes } },
    },
  });
const purge = tool({
  name: 'purge_review',
  destructive: true,
  description: 'Deletes a review for good, keeping a copy only for an audit hold.',
  args: {
    type: 'object',
    required: ['review_id', 'cause', 'audit_hold'],
    properties: { review_id: { type: 'string' }, cause: { enum: CAUSES }, audit_hold: { type: 'boolean' } },
  },
});

const desk = (
  tools: ToolDescriptor[] = [suppress(), purge],
  event: Partial<EventShape> = {},
): DraftCatalog => ({
  tools,
  events: [{ type: 'review.flagged', payload: ['flag_count', 'kind'], ...event }],
});
const draft = (request: string, catalog = desk()) => {
  const compiled = compileRequest(request, catalog);
  return { compiled, d: draftSpec(compiled, catalog) };
};
const toolStep = (s: unknown) => s as StepSpec;

test("an enum argument named for a classification takes the event's one classification field, Assumed", () => {
  const { d, compiled } = draft('when a review is flagged, suppress it');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.equal(toolStep(d.spec!.steps[0]).args!.cause, '{{event.payload.kind}}');
  const assumed = compiled.assumptions!.join('\n');
  assert.match(assumed, /review\.flagged event's kind is read as holding the classes/);
  assert.match(assumed, /no sample event shows its values/);
  assert.match(d.readBack!.text, /Assumed:[\s\S]*kind/);
});

test('a class said of the events tests the field, said before the noun or as a heading', () => {
  for (const [request, when] of [
    ['suppress fake reviews', 'payload.kind == "fake"'],
    ['offensive: suppress it', 'payload.kind == "offensive"'],
    ['offtopic -> suppress it', 'payload.kind == "offtopic"'],
  ] as const) {
    const { d } = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(d.spec!.triggers[0]!.when, when, request);
    assert.equal(toolStep(d.spec!.steps[0]).args!.cause, '{{event.payload.kind}}', request);
  }
});

test('a word said of the events that no reading accounts for is asked about, never dropped', () => {
  for (const request of ['suppress hateful reviews', 'purge reviews with slurs in them, audit hold on']) {
    const { d } = draft(request);
    assert.equal(d.publishable, false, request);
    assert.ok(
      d.questions.some((q) => q.about === 'request'),
      `${request}: ${JSON.stringify(d.questions)}`,
    );
  }
});

test('samples showing the field, or two lists of classes, read nothing of the kind', () => {
  const outside = draft(
    'when a review is flagged, suppress it',
    desk(undefined, { values: { kind: ['troll', 'bot'] } }),
  ).d;
  assert.equal(outside.publishable, false);
  assert.ok(outside.questions.some((q) => q.about === 'args: suppress_review.cause'));
  const two = draft('when a review is flagged, suppress it', desk([suppress(['fake', 'rude']), purge])).d;
  assert.equal(two.publishable, false);
  assert.ok(two.questions.some((q) => q.about === 'args: suppress_review.cause'));
});

test('"keep a copy for audit" says the yes/no a tool keeps a copy for', () => {
  const { d, compiled } = draft('fake reviews: purge them, keep a copy for audit');
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  const step = toolStep(d.spec!.steps[0]);
  assert.equal(step.tool, 'purge_review');
  assert.equal(step.args!.audit_hold, true);
  assert.match(compiled.assumptions!.join('\n'), /audit_hold is read as true/);
  // The whole name said after it ("for audit hold") is the same, no word of it left over.
  const whole = draft('fake reviews: purge them, keep a copy for audit hold').d;
  assert.equal(whole.publishable, true, JSON.stringify(whole.questions));
  assert.equal(toolStep(whole.spec!.steps[0]).args!.audit_hold, true);
  // Without that description, the words say nothing of the argument.
  const plain = tool({ ...purge, description: 'Deletes a review for good.' });
  const bare = draft('fake reviews: purge them, keep a copy for audit', desk([suppress(), plain])).d;
  assert.equal(bare.publishable, false);
});

test('property: any class of the list said as a heading is a test of the field, never only the argument', () => {
  fc.assert(
    fc.property(
      fc.constantFrom('fake', 'offensive', 'offtopic'),
      fc.constantFrom('kind', 'category', 'type', 'topic'),
      fc.constantFrom(': ', ' -> ', ' → '),
      (value, field, mark) => {
        const catalog = desk(undefined, { payload: ['flag_count', field] });
        const d = draftSpec(compileRequest(`${value}${mark}suppress it`, catalog), catalog);
        assert.equal(d.publishable, true, `${value}${mark}${field}: ${JSON.stringify(d.questions)}`);
        assert.equal(d.spec!.triggers[0]!.when, `payload.${field} == "${value}"`);
        assert.equal(toolStep(d.spec!.steps[0]).args!.cause, `{{event.payload.${field}}}`);
      },
    ),
  );
});

test('a class said as what happened to the events ("flagged as fake") and given only to a step is asked', () => {
  const catalog = desk(undefined, { values: { kind: ['fake', 'offensive'] } });
  for (const request of ['reviews flagged as fake get suppressed', 'suppress reviews flagged as offtopic']) {
    const { d } = draft(request, catalog);
    assert.equal(d.publishable, false, `${request}: ${JSON.stringify(d.spec)}`);
    assert.ok(
      d.questions.some((q) => q.question.includes('without testing kind')),
      `${request}: ${JSON.stringify(d.questions)}`,
    );
  }
  // Said with the action, or tested, it is the argument's value alone.
  const said = draft("fake reviews: suppress them as 'fake'", catalog).d;
  assert.equal(said.publishable, true, JSON.stringify(said.questions));
});
