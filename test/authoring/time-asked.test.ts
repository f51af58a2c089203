/**
 * The time asked for, restated ("for however many days they asked", "no matter how long they asked
 * for", "for as long as they asked"): the one argument of the catalog that counts time keeps the
 * event's own value, or takes the value said elsewhere in every step ("for 3 days, no matter how
 * long they asked for"). Over the access-request template's catalog; the requests are this test's own.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Draft } from '../../src/core/authoring/index.ts';
import { BLIND6_DIR, draftOver } from './draft-corpus.ts';

const draft = (request: string): Draft => draftOver(request, BLIND6_DIR, 'access-request');
const days = (d: Draft) =>
  (d.spec?.steps ?? []).flatMap((s) =>
    'args' in s && s.args.duration_days !== undefined ? [[s.tool, s.args.duration_days]] : [],
  );

test('"for however many days they asked" and "for as long as they asked" keep the days the event asks for', () => {
  for (const request of [
    'crm viewer requests: get the manager to sign off, then grant it for however many days they asked',
    'crm viewer requests: grant it for as long as they asked',
  ]) {
    const d = draft(request);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.ok(days(d).length > 0, request);
    for (const [, v] of days(d)) assert.equal(v, '{{event.payload.duration_days}}', request);
    assert.match((d.readBack?.assumed ?? []).join('\n'), /duration_days is the event's own/, request);
  }
});

test('"no matter how long they asked for" with a time said: that time in every step that takes one', () => {
  const d = draft(
    'production viewer requests: manager signs off, then grant it for 3 days no matter how long they asked for',
  );
  assert.equal(d.publishable, true, JSON.stringify(d.questions));
  assert.deepEqual(days(d), [
    ['request_manager_signoff', 3],
    ['grant_access', 3],
  ]);
  assert.match((d.readBack?.assumed ?? []).join('\n'), /duration_days is 3 in every step that takes it/);
});

test('"as long as they asked for it" without "for" is not a restatement: its words are asked about', () => {
  const d = draft('crm viewer requests: grant it as long as they asked for it');
  assert.equal(d.publishable, false);
});

test('the time asked for and another time said, or a bound after it, are asked about', () => {
  for (const request of [
    'access requested: get manager signoff for 30 days then grant for as long as they asked',
    'access requested: grant it for as long as they asked; signoff for 7 days',
    'access requested: grant for however many days they asked, capped at 14',
    'access requested: grant it for however many days they asked, but 1 day for admin',
    'access requested: grant it for however many days they asked, 30 tops',
    'access requested: grant it for however many days they requested (max 14)',
  ])
    assert.equal(draft(request).publishable, false, request);
});
