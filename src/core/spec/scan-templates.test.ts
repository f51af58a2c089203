import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KeelError } from '../errors.ts';
import { resolveArgs } from './resolve-args.ts';
import { parseTemplatePath, scanTemplates } from './scan-templates.ts';
import { templateRefs } from './template-refs.ts';
import { validateSpec } from './validate-spec.ts';

describe('scanTemplates', () => {
  it('tells whole-value templates from interpolation', () => {
    assert.equal(scanTemplates('{{event.subject}}').whole, true);
    assert.equal(scanTemplates('{{   event.subject   }}').whole, true);
    assert.equal(scanTemplates(' {{event.subject}}').whole, false);
    assert.equal(scanTemplates('{{event.subject}}{{event.id}}').whole, false);
    assert.equal(scanTemplates('plain').whole, false);
  });

  it('splits text and templates in order', () => {
    assert.deepEqual(scanTemplates('a {{ event.id }} b }} c').parts, [
      { kind: 'text', text: 'a ' },
      { kind: 'template', path: 'event.id', ref: { root: 'event', path: ['id'] } },
      { kind: 'text', text: ' b }} c' },
    ]);
    assert.deepEqual(scanTemplates('x {{ event.id').parts[1], {
      kind: 'invalid',
      path: 'event.id',
      message: 'template is not closed with "}}"',
    });
  });
});

describe('parseTemplatePath', () => {
  it('classifies event, step and source paths', () => {
    assert.deepEqual(parseTemplatePath('event'), { root: 'event', path: [] });
    assert.deepEqual(parseTemplatePath('event.payload.items[0].sku'), {
      root: 'event',
      path: ['payload', 'items', 0, 'sku'],
    });
    assert.deepEqual(parseTemplatePath('steps.lookup.output'), { root: 'step', step: 'lookup', path: [] });
    assert.deepEqual(parseTemplatePath('steps.lookup.output.lines[12]'), {
      root: 'step',
      step: 'lookup',
      path: ['lines', 12],
    });
    assert.deepEqual(parseTemplatePath('clock.now'), {
      root: 'source',
      ref: { source: 'clock', name: 'now' },
    });
    assert.deepEqual(parseTemplatePath('random.float'), {
      root: 'source',
      ref: { source: 'random', name: 'float' },
    });
    assert.deepEqual(parseTemplatePath('id.new'), { root: 'source', ref: { source: 'id', name: 'new' } });
    assert.deepEqual(parseTemplatePath('env.API_KEY'), {
      root: 'source',
      ref: { source: 'env', name: 'API_KEY' },
    });
  });

  it('reads any other root as a loop item, which the spec check accepts only inside its forEach', () => {
    assert.deepEqual(parseTemplatePath('line.amount'), { root: 'item', name: 'line', path: ['amount'] });
    assert.deepEqual(parseTemplatePath('line'), { root: 'item', name: 'line', path: [] });
    assert.deepEqual(parseTemplatePath('line.tags[1]'), { root: 'item', name: 'line', path: ['tags', 1] });
  });

  it('explains invalid paths', () => {
    const cases: [string, RegExp][] = [
      ['', /empty template/],
      ['9x', /is not a path/],
      ['event.payload.a-b', /unexpected "-b"/],
      ['event.payload[01]', /unexpected/],
      ['event.payload.', /unexpected "\."/],
      ['event.headers', /unknown event field "headers"/],
      ['event.time.year', /is a string and has no fields/],
      ['steps.lookup', /steps\.<name>\.output/],
      ['steps.lookup.result', /steps\.<name>\.output/],
      ['steps[0].output', /steps\.<name>\.output/],
      ['env', /env\.<NAME>/],
      ['env.A.B', /env\.<NAME>/],
      ['clock', /read as clock\.now/],
      ['random.int', /read as random\.float/],
    ];
    for (const [path, message] of cases) {
      const r = parseTemplatePath(path);
      assert.equal(typeof r, 'string', path);
      assert.match(r as string, message, path);
    }
  });
});

describe('templateRefs', () => {
  it('lists every well-formed template with its field, keys in canonical order', () => {
    assert.deepEqual(
      templateRefs({
        z: 'Hi {{ event.payload.name }} at {{clock.now}}',
        a: [{ note: '{{steps.lookup.output.x}}' }, 'plain', 7],
        'odd key': '{{env.TOKEN}}',
        bad: '{{ clock.x }}',
        item: '{{ line.sku }}',
      }),
      [
        { field: 'a[0].note', path: 'steps.lookup.output.x' },
        { field: 'item', path: 'line.sku' },
        { field: '["odd key"]', path: 'env.TOKEN' },
        { field: 'z', path: 'event.payload.name' },
        { field: 'z', path: 'clock.now' },
      ],
    );
  });
});

describe('template paths name own data only', () => {
  // `{{toString}}` once classified as a source (read off Object.prototype), published, and then
  // wedged every run of the version in `running`: the walk threw canonical_invalid.
  const inherited = [...Object.getOwnPropertyNames(Object.prototype), 'constructor.prototype'];

  it('a name inherited from Object.prototype is no template path', () => {
    for (const name of inherited) {
      assert.equal(typeof parseTemplatePath(name), 'string', `{{${name}}} was accepted`);
      for (const p of [`clock.${name}`, `random.${name}`, `id.${name}`]) {
        assert.equal(typeof parseTemplatePath(p), 'string', `{{${p}}} was accepted`);
      }
    }
  });

  it('is refused when the spec is validated, naming the field', () => {
    for (const name of inherited) {
      const spec = {
        id: 'proto',
        version: 1,
        status: 'DRAFT',
        steps: [{ name: 's', tool: 'core.noop', args: { a: `{{${name}}}`, b: `x {{ ${name} }}` } }],
        limits: { maxSteps: 1, maxCostUsd: 0 },
      };
      assert.throws(
        () => validateSpec(spec, 'proto.json'),
        (e: KeelError) =>
          e.code === 'spec_invalid' &&
          (e.details.problems as { field: string }[]).map((p) => p.field).join() ===
            'steps[0].args.a,steps[0].args.b',
        `{{${name}}}`,
      );
    }
  });

  it('resolving one (a version stored before this check) is a refusal, never a throw', () => {
    const r = resolveArgs(
      { a: '{{toString}}', b: '{{ __proto__ }}', c: 'x {{constructor}}' },
      {
        event: { id: 'e', type: 't', tenant: 'acme', source: '', subject: '', payload: {}, time: '' },
        steps: {},
        draw: () => assert.fail('nothing is drawn for an invalid template'),
      },
    );
    assert.equal(r.ok, false);
    assert.deepEqual(!r.ok && r.problems.map((p) => p.field), ['a', 'b', 'c']);
  });
});
