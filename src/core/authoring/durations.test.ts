/**
 * Durations said for an argument that counts time (grammar/read-durations.ts), over a catalog no
 * corpus uses (a parking desk): "for 30 days", "a week", "a fortnight", "with a 4-hour window".
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tool } from '../../../test/authoring/catalog-tool.ts';
import { compileRequest } from './compile-request.ts';
import { durationSpans } from './grammar/read-durations.ts';
import { type DraftCatalog, draftSpec } from './index.ts';

const parking = (unit: 'days' | 'hours'): DraftCatalog => ({
  tools: [
    tool({
      name: 'issue_permit',
      description: 'Issues a parking permit for a plate.',
      args: {
        type: 'object',
        required: ['plate', `valid_${unit}`],
        properties: { plate: { type: 'string' }, [`valid_${unit}`]: { type: 'integer', minimum: 1 } },
      },
    }),
  ],
  events: [{ type: 'permit.requested', payload: ['plate', 'zone'] }],
});

const permit = (request: string, unit: 'days' | 'hours' = 'days') => {
  const catalog = parking(unit);
  const d = draftSpec(compileRequest(request, catalog), catalog);
  return { d, args: d.spec?.steps[0] && 'args' in d.spec.steps[0] ? d.spec.steps[0].args : undefined };
};

test('a duration said for an argument that counts time is its value, in its unit', () => {
  for (const [request, unit, value] of [
    ['when a permit is requested issue a permit for 30 days', 'days', 30],
    ['permit requested -> issue a permit valid for a week', 'days', 7],
    ['when a permit is requested issue a permit for a fortnight', 'days', 14],
    ['when a permit is requested issue a permit for two days', 'hours', 48],
    ['when a permit is requested issue a 4-hour permit', 'hours', 4],
    // Tens and units in words, apart or hyphenated: never the units alone.
    ['when a permit is requested issue a permit for forty eight hours', 'hours', 48],
    ['when a permit is requested issue a permit for forty-eight hours', 'hours', 48],
    ['when a permit is requested issue a permit for thirty days', 'days', 30],
    // Short forms after a word or in parentheses: "a 2h permit", "with an 8h limit", "(4h)".
    ['when a permit is requested issue a 2h permit', 'hours', 2],
    ['when a permit is requested issue a permit with an 8h limit', 'hours', 8],
    ['when a permit is requested issue a permit (4h)', 'hours', 4],
  ] as const) {
    const { d, args } = permit(request, unit);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    assert.equal(args?.[`valid_${unit}`], value, request);
  }
});

test('a duration that is a bound, or no whole number of the unit, is not taken as the value', () => {
  for (const [request, unit] of [
    ['when a permit is requested issue a permit, but never for more than 30 days', 'days'],
    ['when a permit is requested issue a permit for up to a week', 'days'],
    ['when a permit is requested issue a permit for 36 hours', 'days'],
  ] as const) {
    const { d, args } = permit(request, unit);
    assert.notEqual(args?.[`valid_${unit}`], 30, request);
    assert.equal(d.publishable, false, `${request}: drafted ${JSON.stringify(args)}`);
  }
});

test('property: N days read for a count of hours is N * 24, and N hours never reads as days', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 999 }), (n) => {
      assert.deepEqual(durationSpans(['for', String(n), 'days'], 'hour'), [
        { from: 1, to: 2, value: n * 24 },
      ]);
      const asDays = durationSpans(['for', String(n), 'hours'], 'day');
      assert.deepEqual(asDays, n % 24 === 0 ? [{ from: 1, to: 2, value: n / 24 }] : []);
    }),
  );
});

test('a time said of when a link expires ("valid for 24h", "expiring in 3 days", "link expiry two days") is its value', () => {
  const catalog: DraftCatalog = {
    tools: [
      tool({
        name: 'send_pass_link',
        description: 'Sends the driver a link to their parking pass.',
        args: {
          type: 'object',
          required: ['plate', 'expires_hours'],
          properties: {
            plate: { type: 'string' },
            expires_hours: { type: 'integer', minimum: 1, maximum: 168 },
          },
        },
      }),
    ],
    events: [{ type: 'permit.requested', payload: ['plate', 'zone'] }],
  };
  for (const [request, hours] of [
    ['when a permit is requested, send the pass link, valid for 24h', 24],
    ['when a permit is requested, send the pass link, expiring in 3 days', 72],
    ['when a permit is requested, send the pass link. link expiry two days.', 48],
  ] as const) {
    const d = draftSpec(compileRequest(request, catalog), catalog);
    assert.equal(d.publishable, true, `${request}: ${JSON.stringify(d.questions)}`);
    const step = d.spec!.steps[0]!;
    assert.ok('tool' in step);
    assert.equal(step.args.expires_hours, hours, request);
  }
});
