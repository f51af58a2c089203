/**
 * The console's pure parts, outside the browser: the YAML it shows a spec as reads back as the
 * same value (for every JSON value, fast-check), its list of run statuses is the API's, no
 * template writes an HTML entity (htm shows them as written), and a schedule trigger heads the flow
 * drawing by its cron and zone.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { parse } from 'yaml';
import { RUN_STATUSES } from '../../src/core/ledger/index.ts';
import { RUN_STATUSES as CONSOLE_STATUSES } from '../../web/src/format.ts';
import { triggersText } from '../../web/src/trigger-text.ts';
import { toYaml } from '../../web/src/yaml-view.ts';

test('a spec shown as YAML reads back as the same value, whatever it holds', () => {
  const key = fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom('true', 'null', '1', '- x', 'a: b', '#', ''),
  );
  const leaf = fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.constantFrom(
      'yes',
      'no',
      'on',
      '~',
      '0x1f',
      '1e3',
      ' lead',
      'trail ',
      '{{event.subject}}',
      "it's",
      '"q"',
    ),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
    fc.boolean(),
    fc.constant(null),
  );
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      leaf,
      fc.array(tie('node'), { maxLength: 4 }),
      fc.dictionary(key, tie('node'), { maxKeys: 4, noNullPrototype: true }),
    ),
  })).node;
  fc.assert(
    fc.property(fc.dictionary(key, value, { maxKeys: 5, noNullPrototype: true }), (spec) => {
      assert.deepEqual(parse(toYaml(spec)), spec);
    }),
    { numRuns: 500 },
  );
});

test('the support desk spec reads as YAML a person expects', () => {
  const text = toYaml({
    id: 'close-resolved-ticket',
    steps: [{ name: 'close', tool: 'close_ticket', args: { ticket_id: '{{event.subject}}' } }],
    limits: { maxSteps: 3, maxCostUsd: 0 },
  });
  assert.equal(
    text,
    [
      'id: close-resolved-ticket',
      'steps:',
      '  - name: close',
      '    tool: close_ticket',
      '    args:',
      '      ticket_id: "{{event.subject}}"',
      'limits:',
      '  maxSteps: 3',
      '  maxCostUsd: 0',
    ].join('\n'),
  );
});

test('the console filters and counts by every run status the API has, in its order', () => {
  assert.deepEqual([...CONSOLE_STATUSES], [...RUN_STATUSES]);
});

test('no template writes an HTML entity: htm does not decode them, so "&lt;" would show as written', () => {
  const dir = join(import.meta.dirname, '..', '..', 'web', 'src');
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const entities = readFileSync(join(dir, name), 'utf8').match(/&(?:[a-z]+|#\d+|#x[0-9a-f]+);/gi);
    assert.equal(entities, null, `web/src/${name} writes ${entities?.join(', ')}`);
  }
});

test('the flow drawing heads a workflow with its triggers, a schedule by its cron, zone and missed policy', () => {
  assert.equal(
    triggersText([
      { event: 'ticket.resolved' },
      {
        event: 'schedule.fired',
        schedule: { cron: '0 9 * * 1-5', timezone: 'Europe/Berlin', missed: 'once' },
      },
    ]),
    'ticket.resolved or schedule "0 9 * * 1-5" in Europe/Berlin (missed fires: once)',
  );
  assert.equal(triggersText([]), 'a direct start');
  assert.equal(triggersText(undefined), 'a direct start');
});
