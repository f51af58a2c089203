/**
 * Words sent to a `#channel` go by the one tool that posts there ("ping #duty-managers: ..."),
 * never by a tool that messages a person, even where the verb ("ping") names that one too; and a
 * channel said right after a verb mid-sentence ("complaints ping #x: ...") leads a text like a colon;
 * "text them" is a message by SMS where one tool sends by a channel that lists it, and asked elsewhere.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLIND2_DIR, BLIND13_DIR, draftOver } from '../../../test/authoring/draft-corpus.ts';

const toolsOf = (request: string) => {
  const d = draftOver(request, BLIND13_DIR, 'frontdesk');
  assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
  return d.spec!.steps.map((s) => ('tool' in s ? { tool: s.tool, args: s.args } : undefined)!);
};

test('a message to a #channel is the tool that posts to that channel, not the guest messaging tool', () => {
  const [step] = toolsOf(
    'high severity complaints: ping #duty-managers: Complaint <complaint> in room <room>',
  );
  assert.equal(step!.tool, 'post_slack');
  assert.deepEqual(step!.args, {
    channel: 'duty-managers',
    text: 'Complaint {{event.subject}} in room {{event.payload.room_number}}.',
  });
});

test('"sev" is read as severity', () => {
  const d = draftOver(
    'high sev complaints: ping #duty-managers: Complaint <complaint>',
    BLIND13_DIR,
    'frontdesk',
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.match(d.spec!.triggers[0]!.when ?? '', /severity == "high"/);
});

test('an action typed right after the event without a comma may post to a #channel', () => {
  const [step] = toolsOf(
    'when a complaint is logged post to #maintenance: Complaint <complaint>, severity <severity>',
  );
  assert.deepEqual(step, {
    tool: 'post_slack',
    args: {
      channel: 'maintenance',
      text: 'Complaint {{event.subject}}, severity {{event.payload.severity}}.',
    },
  });
});

test('"text them", "sms the guest": the one tool that sends by a channel listing sms, by sms', () => {
  for (const request of [
    'noise complaints: text them: sorry about the noise, we moved you',
    "noise complaints: text the guest 'Sorry about the noise, we moved you.'",
    'noise complaints: sms the guest: sorry about the noise, we moved you',
  ]) {
    const [step] = toolsOf(request);
    assert.deepEqual(
      step,
      {
        tool: 'message_guest',
        args: {
          reservation_id: '{{event.payload.reservation_id}}',
          text: 'Sorry about the noise, we moved you.',
          channel: 'sms',
        },
      },
      request,
    );
  }
});

test('"text the customer" where no tool sends by sms is asked, never another tool', () => {
  const d = draftOver(
    "when a refund is requested, text the customer 'It is on the way.'",
    BLIND2_DIR,
    'support-desk',
  );
  assert.equal(d.publishable, false);
  assert.ok(
    d.questions.some((q) => q.question.includes('No tool in the catalog does "text the customer')),
    JSON.stringify(d.questions),
  );
});
