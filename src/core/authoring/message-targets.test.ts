/**
 * Words sent to a `#channel` go by the one tool that posts there ("ping #duty-managers: ..."),
 * never by a tool that messages a person, even where the verb ("ping") names that one too; and a
 * channel said right after a verb mid-sentence ("complaints ping #x: ...") leads a text like a colon;
 * "text them" is a message by SMS where one tool sends by a channel that lists it, and asked elsewhere;
 * and "email the manager 'x'", where the tool lists its managers, says whom, never that 'x' is one.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  assertAsks,
  BLIND2_DIR,
  BLIND9_DIR,
  BLIND12_DIR,
  BLIND13_DIR,
  draftOver,
} from '../../../test/authoring/draft-corpus.ts';

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
  assertAsks(
    "when a refund is requested, text the customer 'It is on the way.'",
    BLIND2_DIR,
    'support-desk',
    'No tool in the catalog does "text the customer',
  );
});

test('"email the manager \'x\'": the words name whom (asked among the listed managers); the text is the body', () => {
  const named = toolsOf("staff complaints: email the revenue manager 'Staff complaint <complaint>'");
  assert.deepEqual(named, [
    { tool: 'email_manager', args: { manager: 'revenue', body: 'Staff complaint {{event.subject}}' } },
  ]);
  const request = "staff complaints: email the manager 'Staff complaint <complaint>'";
  assertAsks(request, BLIND13_DIR, 'frontdesk', "email_manager's manager");
  const d = draftOver(request, BLIND13_DIR, 'frontdesk');
  const step = d.partial!.steps[0]!;
  assert.ok('tool' in step);
  assert.deepEqual(step.args, { body: 'Staff complaint {{event.subject}}' });
});

test('"post in the returns channel \'x\'": the text is the message, never the channel', () => {
  const d = draftOver(
    "when a return is requested, post in the returns channel 'RMA <rma> for <order>'",
    BLIND9_DIR,
    'shipping',
  );
  const step = (d.spec ?? d.partial)!.steps[0]!;
  assert.ok('tool' in step, JSON.stringify(d.questions));
  assert.equal(step.tool, 'post_slack');
  assert.equal(step.args.channel, 'returns');
});

test('"email the FOM": a listed value said by its initials in capitals; "as" typed in lower case is a word', () => {
  for (const [request, manager] of [
    ['staff complaints: email the FOM: Staff complaint <complaint>', 'front_office'],
    ["staff complaints: email the GM 'Staff complaint <complaint>'", 'general'],
  ] as const) {
    const [step] = toolsOf(request);
    assert.equal(step!.args.manager, manager, request);
  }
  const d = draftOver(
    'staff complaints: email the fom: Staff complaint <complaint>',
    BLIND13_DIR,
    'frontdesk',
  );
  assert.equal(d.publishable, false);
});

test('a message after a colon ends at ", and <a money action> $<amount>" and at ", only for ..."', () => {
  const both = toolsOf('complaint logged: text them: sorry, a refund of $40 is coming, and refund $40');
  assert.deepEqual(
    both.map((s) => s.tool),
    ['message_guest', 'refund_guest'],
  );
  assert.equal(both[0]!.args.text, 'Sorry, a refund of $40 is coming.');
  // The restriction is never sent as words while the refund goes to every guest.
  const d = draftOver(
    'complaint logged: refund $20 and text them: sorry, only for gold members',
    BLIND13_DIR,
    'frontdesk',
  );
  assert.ok(!d.publishable || d.spec?.triggers[0]?.when !== undefined, JSON.stringify(d.spec));
  const steps = JSON.stringify((d.spec ?? d.partial)?.steps);
  assert.ok(!steps.includes('gold members'), steps);
});

test('"text the tenant" with no tool that sends by sms, or "text the duty manager", is asked: never an email tool', () => {
  for (const [request, dir, file] of [
    ['rent missed: text the tenant: rent is overdue', BLIND12_DIR, 'lettings'],
    ['complaint logged: text the duty manager: complaint in <room>', BLIND13_DIR, 'frontdesk'],
  ] as const) {
    assertAsks(request, dir, file, 'No tool in the catalog does "');
  }
});

test('"high sev complaints" test the severity; "hi sev complaints", with no value, is asked', () => {
  const [step] = toolsOf('high sev complaints: ping #duty-managers: <complaint> in <room>');
  assert.equal(step!.args.text, '{{event.subject}} in {{event.payload.room_number}}.');
  assert.equal(
    draftOver('high sev complaints: ping #duty-managers: <complaint> needs you', BLIND13_DIR, 'frontdesk')
      .spec?.triggers[0]?.when,
    'payload.severity == "high"',
  );
  const hi = draftOver(
    'hi sev complaints: ping #duty-managers: <complaint> needs you',
    BLIND13_DIR,
    'frontdesk',
  );
  assert.equal(hi.publishable, false);
});

test('"sms them w/ note we\'re on it": the words, without the note\'s name; "<report>" is the report, not who reported it', () => {
  assert.equal(toolsOf("complaint logged: sms them w/ note we're on it")[0]!.args.text, "We're on it.");
  const [, post] = toolsOf(
    'damage reported: add a damage charge and post to #maintenance: room <room> damaged, report <report>',
  );
  assert.equal(post!.args.text, 'Room {{event.payload.room_number}} damaged, report {{event.subject}}.');
});
